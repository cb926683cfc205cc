//! Inspect a capture: tell its dialect, check it, and look inside without decoding it.
//!
//! ```sh
//! cargo run --example inspect_capture                      # the sample packet in examples/
//! cargo run --example inspect_capture -- capture.bin       # a file of your own
//! cargo run --example inspect_capture -- --framed log.bin  # a stream of store_var values
//! ```

use std::process::ExitCode;

use gdvariant::framing::{raw_frames, FrameOptions};
use gdvariant::{detect::Detector, Event, ReadOptions, VariantRef, Walker};

fn main() -> ExitCode {
    let mut framed = false;
    let mut path = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--framed" => framed = true,
            _ => path = Some(arg),
        }
    }
    let path = path.unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/game_state.bin").to_string()
    });
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match inspect(&bytes, framed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{path}: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn inspect(bytes: &[u8], framed: bool) -> Result<(), gdvariant::Error> {
    // The values: the whole file, or each frame's value.
    let values: Vec<(usize, &[u8])> = if framed {
        let opts = FrameOptions::new().with_max_frame(u32::MAX as usize);
        raw_frames(bytes, &opts)
            .map(|f| f.map(|f| (f.offset, f.bytes)))
            .collect::<Result<_, _>>()?
    } else {
        vec![(0, bytes)]
    };

    // 1. Which engine wrote it? Both dialects are read; the detection says why.
    let mut detector = Detector::new(&ReadOptions::new().with_full_objects(true));
    for &(at, b) in &values {
        detector.value(b, at);
    }
    let detection = detector.detection();
    println!(
        "{} bytes, {} value(s); dialect: {detection}",
        bytes.len(),
        values.len()
    );
    let opts = ReadOptions::new()
        .with_dialect(detection.read_as())
        .with_full_objects(true);

    for &(at, b) in &values {
        // 2. Check everything once, without allocating.
        let len = gdvariant::validate_with(b, &opts).map_err(|e| e.shifted(at))?;
        let v = gdvariant::parse_with(b, &opts)?;
        println!("@{at}: {} of {len} bytes", v.ty());
        // 3. The top level, lazily: types and sizes, nothing decoded.
        outline(&v)?;
        // 4. Statistics in one walk.
        let (mut values, mut deepest) = (0u64, 0u32);
        let mut w = Walker::from_value(v);
        while let Some(e) = w.next_event()? {
            if matches!(e, Event::Begin(_) | Event::Value(_)) {
                values += 1;
                deepest = deepest.max(w.depth());
            }
        }
        println!("  {values} values, nested {deepest} deep");
    }

    // 5. Straight to one value by its path (packed array elements included).
    if let Ok(v) = gdvariant::parse_with(bytes, &opts) {
        for path in ["tick", "entities/3/pos", "entities/7/tags/0"] {
            if let Some(item) = v.path_item(path)? {
                println!("{path} = {item:?}");
            }
        }
    }
    Ok(())
}

fn outline(v: &VariantRef<'_>) -> Result<(), gdvariant::Error> {
    if let Ok(d) = v.as_dictionary() {
        for entry in d.iter() {
            let (k, v) = entry?;
            let key = k.as_str().unwrap_or("<not a string>");
            println!("  {key}: {} ({} bytes)", v.ty(), v.byte_len()?);
        }
    } else if let Ok(a) = v.as_array() {
        println!("  {} elements", a.len());
    }
    Ok(())
}
