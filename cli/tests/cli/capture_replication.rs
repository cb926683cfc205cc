//! `gdvariant capture` over Godot 4 replication traffic (godot4_replication.pcap, recorded by
//! `tests/godot/capture_enet.sh rep4` from tests/godot/capture_rep4.gd): the SPAWN of a
//! MultiplayerSpawner with its spawn state, the SYNC ("always") and DELTA ("on change") packets of
//! its MultiplayerSynchronizer carrying each value the script set, the DESPAWN; and
//! `--command spawn` / `sync` / `despawn` selecting exactly those lines; with the project's schema,
//! each value under its property's name.

use crate::capture::{capture, in_order, run, shown, side, stdout};

/// The lines of `out` holding `needle`, each ending with a newline.
fn lines_with(out: &str, needle: &str) -> String {
    out.lines()
        .filter(|l| l.contains(needle))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The replication session: one flow, the server's side in order (SPAWN with position
/// Vector2(1.5, -2) and speed 7; SYNC of each position, DELTA of each speed; DESPAWN), the
/// client's `CONNECT` and `CONFIRM_PATH`; the filters.
pub(crate) fn check_godot4_replication_in_order(file: &str) {
    let out = shown(file);
    assert!(!out.contains("error"), "{out}");
    let up = side(&out, 1, true);
    in_order(
        &up,
        &[
            "enet CONNECT peer ",
            "enet ch 0 RELIABLE CONFIRM_PATH id 1 valid true\n",
            "enet DISCONNECT",
        ],
    );
    let down = side(&out, 1, false);
    let spawn =
        "enet ch 0 RELIABLE SPAWN spawner 1 spawner path \"Game/Spawner\" scene 0 net id 1 \
                 name \"Unit\" sync ids [2] | state 0: Vector2(1.5, -2) | state 1: 7\n";
    let delta = |v: &str| {
        format!("enet ch 0 RELIABLE DELTA | entry net id 2 synchronizer \"Unit #0\" mask 0b1 | value 0: {v}\n")
    };
    // The "always" property in every SYNC, as the script set it: the spawn's value first, then
    // each new one (the SYNC time is the server's frame count, which the test does not know).
    let positions = [
        "Vector2(1.5, -2)\n",
        "Vector2(10, 20)\n",
        "Vector2(-3, 4.5)\n",
    ];
    let syncs: Vec<&str> = down.lines().filter(|l| l.contains(" SYNC ")).collect();
    assert!(syncs.len() >= 3, "{down}");
    let mut at = 0;
    for l in &syncs {
        let (head, value) = l
            .split_once(" | entry net id 2 synchronizer \"Unit #0\" | value 0: ")
            .unwrap_or_else(|| panic!("{l}"));
        assert!(head.contains(" enet ch 1 UNRELIABLE SYNC time "), "{l}");
        let i = positions
            .iter()
            .position(|p| p.trim_end() == value)
            .unwrap_or_else(|| panic!("{l}"));
        assert!(i == at || i == at + 1, "positions out of order: {l}");
        at = i;
    }
    assert_eq!(at, 2, "the last position never synced:\n{down}");
    // The SPAWN first, the SYNCs in order of their values, the DESPAWN last; each DELTA (the
    // "on change" property: the spawn's value once, then each change) after the SPAWN, in order,
    // before the DESPAWN.
    let first = |p: &str| {
        let l = syncs.iter().find(|l| l.ends_with(p.trim_end())).unwrap();
        format!("{l}\n")
    };
    in_order(
        &down,
        &[
            "enet VERIFY_CONNECT channels 255 mtu 1392\n",
            "enet ch 0 RELIABLE SIMPLIFY_PATH id 1 path \"Game/Spawner\" checksum ",
            spawn,
            &first(positions[0]),
            &first(positions[1]),
            &first(positions[2]),
            "enet ch 0 RELIABLE DESPAWN net id 1\n",
        ],
    );
    in_order(
        &down,
        &[
            spawn,
            &delta("7"),
            &delta("300"),
            &delta("-5"),
            "enet ch 0 RELIABLE DESPAWN net id 1\n",
        ],
    );
    assert_eq!(lines_with(&out, " SPAWN ").lines().count(), 1, "{out}");
    assert_eq!(lines_with(&out, " DELTA ").lines().count(), 3, "{out}");
    assert_eq!(lines_with(&out, " DESPAWN ").lines().count(), 1, "{out}");
    assert!(!syncs.iter().any(|l| l.contains("SPAWN")));
    // --command: exactly those lines, as the whole output shows them.
    for (command, needles) in [
        ("spawn", &[" SPAWN "][..]),
        ("despawn", &[" DESPAWN "]),
        ("sync", &[" SYNC ", " DELTA "]),
    ] {
        let o = run(&["capture", "--command", command, file]);
        assert_eq!(o.status.code(), Some(0), "--command {command}");
        let want: String = out
            .lines()
            .filter(|l| needles.iter().any(|n| l.contains(n)))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(!want.is_empty());
        assert_eq!(stdout(&o), want, "--command {command}");
    }
    // With the project's schema (the spawned scene's synchronizer, its properties in order),
    // each value under its property's name.
    // A file of its own for each call (the live test calls this beside the committed one's test).
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let schema =
        std::env::temp_dir().join(format!("capture-rep-schema-{}-{n}.txt", std::process::id()));
    std::fs::write(
        &schema,
        "spawned Game/Spawner 0 0 .:position=always+spawn .:speed=change+spawn\n",
    )
    .unwrap();
    let o = run(&[
        "capture",
        "--schema",
        schema.to_str().unwrap(),
        "--command",
        "spawn",
        "--command",
        "sync",
        file,
    ]);
    std::fs::remove_file(&schema).unwrap();
    in_order(
        &stdout(&o),
        &[
            "SPAWN spawner 1 spawner path \"Game/Spawner\" scene 0 net id 1 name \"Unit\" sync ids [2] \
             | state .:position: Vector2(1.5, -2) | state .:speed: 7\n",
            "| value .:position: Vector2(10, 20)\n",
            "| value .:position: Vector2(-3, 4.5)\n",
        ],
    );
    in_order(
        &stdout(&o),
        &[
            "mask 0b1 | value .:speed: 7\n",
            "mask 0b1 | value .:speed: 300\n",
            "mask 0b1 | value .:speed: -5\n",
        ],
    );
}

#[test]
fn godot4_replication_spawn_sync_delta_despawn_in_order() {
    check_godot4_replication_in_order(&capture("godot4_replication.pcap"));
}
