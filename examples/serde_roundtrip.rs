//! A serde round trip: your own types to the engine's bytes and back, borrowing strings from
//! the input, with the errors saying where.
//!
//! ```sh
//! cargo run --example serde_roundtrip --features serde
//! ```

use gdvariant::{math::Color, math::Vector3};
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Save<'a> {
    version: u32,
    player: &'a str, // borrowed from the bytes on reading
    position: Vector3,
    tint: Color,
    #[serde(borrow)]
    inventory: Vec<Item<'a>>,
    flags: Option<Vec<bool>>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
enum Item<'a> {
    Potion { heal: f32 },
    Key(&'a str),
    Gold(i64),
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let save = Save {
        version: 3,
        player: "Ada",
        position: Vector3::new(1.0, 2.5, -4.0),
        tint: Color::new(1.0, 0.5, 0.25, 1.0),
        inventory: vec![
            Item::Potion { heal: 12.5 },
            Item::Key("crypt"),
            Item::Gold(9_000_000_000),
        ],
        flags: None,
    };

    // The bytes `var_to_bytes` writes for the same Dictionary.
    let bytes = gdvariant::to_vec(&save)?;
    assert_eq!(gdvariant::validate(&bytes)?, bytes.len());
    println!("{} bytes", bytes.len());

    // Back, borrowing: `player` and the key's name point into `bytes`.
    let back: Save<'_> = gdvariant::from_slice(&bytes)?;
    assert_eq!(back, save);
    assert!(bytes.as_ptr_range().contains(&back.player.as_ptr()));
    println!("{back:?}");

    // A Variant tree reads the same bytes too, and writes them back unchanged.
    let tree: gdvariant::Variant = gdvariant::from_slice(&bytes)?;
    assert_eq!(gdvariant::encode(&tree)?, bytes);

    // Errors name the field and the byte offset.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Wrong {
        position: String,
    }
    let err = gdvariant::from_slice::<Wrong>(&bytes).unwrap_err();
    println!("as the wrong type: {err}");
    assert_eq!(
        err.to_string(),
        "position: expected a string, found Vector3 at offset 76"
    );
    Ok(())
}
