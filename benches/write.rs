//! Write-side throughput: `to_owned` of the game-state packet, encoding the owned tree, the
//! streaming writer, and a 16 MB PackedFloat32Array against a plain memcpy.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gdvariant::{encode, encode_into, math::Vector3, parse, EncodeOptions, Variant, Writer};

/// Streams the game-state packet from plain Rust data, as a server would.
fn write_game_state(w: &mut Writer, entities: &[common::Entity]) -> gdvariant::Result<()> {
    w.begin_dictionary(Some(2))?;
    w.string("tick")?;
    w.int(common::TICK)?;
    w.string("entities")?;
    w.begin_array(Some(entities.len()))?;
    for e in entities {
        w.begin_dictionary(Some(6))?;
        w.string("id")?;
        w.int(e.id)?;
        w.string("name")?;
        w.string(&e.name)?;
        w.string("pos")?;
        w.vector3(Vector3::from_array(e.pos.map(f64::from)))?;
        w.string("vel")?;
        w.vector3(Vector3::from_array(e.vel.map(f64::from)))?;
        w.string("hp")?;
        w.float(f64::from(e.hp))?;
        w.string("tags")?;
        w.packed_strings(&e.tags)?;
        w.end()?;
    }
    w.end()?;
    w.end()
}

fn game_state(c: &mut Criterion) {
    let packet = common::game_state_packet();
    let entities: Vec<common::Entity> = (0..common::ENTITIES).map(common::entity).collect();
    let tree = parse(&packet).unwrap().to_owned().unwrap();
    // The benchmarks must produce the right bytes.
    assert_eq!(encode(&tree).unwrap(), packet);
    let mut w = Writer::new(EncodeOptions::new());
    write_game_state(&mut w, &entities).unwrap();
    assert_eq!(w.finish().unwrap(), packet);

    let mut g = c.benchmark_group("game_state");
    g.throughput(Throughput::Bytes(packet.len() as u64));
    g.bench_function("to_owned", |b| {
        b.iter_with_large_drop(|| parse(&packet).unwrap().to_owned().unwrap())
    });
    g.bench_function("encode", |b| b.iter(|| encode(&tree).unwrap()));
    let mut buf = Vec::with_capacity(packet.len());
    g.bench_function("encode_into_reused_buffer", |b| {
        b.iter(|| {
            buf.clear();
            encode_into(&tree, &mut buf, &EncodeOptions::new()).unwrap();
            buf.len()
        })
    });
    let mut spare = Some(Vec::with_capacity(packet.len()));
    g.bench_function("writer_reused_buffer", |b| {
        b.iter(|| {
            let mut out = spare.take().unwrap_or_default();
            out.clear();
            let mut w = Writer::with_buffer(out, EncodeOptions::new());
            write_game_state(&mut w, &entities).unwrap();
            let out = w.finish().unwrap();
            let n = out.len();
            spare = Some(out);
            n
        })
    });
    g.finish();
}

fn packed_f32(c: &mut Criterion) {
    const N_BYTES: usize = 16 << 20;
    let floats: Vec<f32> = (0..N_BYTES / 4).map(common::packed_f32_element).collect();
    let expected = common::packed_f32_array(N_BYTES);
    let owned = Variant::PackedFloat32Array(floats.clone());
    assert_eq!(encode(&owned).unwrap(), expected);
    let payload: &[u8] = &expected[8..];

    let mut g = c.benchmark_group("packed_f32_16MB");
    g.throughput(Throughput::Bytes(N_BYTES as u64));
    g.sample_size(20);
    let mut buf = Vec::with_capacity(expected.len());
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            buf.clear();
            buf.extend_from_slice(payload);
            buf.len()
        })
    });
    let mut spare = Some(Vec::with_capacity(expected.len()));
    g.bench_function("writer_packed_f32", |b| {
        b.iter(|| {
            let mut out = spare.take().unwrap_or_default();
            out.clear();
            let mut w = Writer::with_buffer(out, EncodeOptions::new());
            w.packed_f32(&floats).unwrap();
            let out = w.into_inner();
            let n = out.len();
            spare = Some(out);
            n
        })
    });
    g.bench_function("encode_into_owned", |b| {
        b.iter(|| {
            buf.clear();
            encode_into(&owned, &mut buf, &EncodeOptions::new()).unwrap();
            buf.len()
        })
    });
    g.finish();
}

criterion_group!(benches, game_state, packed_f32);
criterion_main!(benches);
