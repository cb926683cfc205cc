//! The repository's own Markdown documents (the README, `docs/`, the crates' and the tests' and
//! benches' READMEs, the CHANGELOG): every relative link and every `#anchor` resolves, and the
//! README stays a front page of at most 300 lines. `cargo doc` with `-D warnings` checks the
//! intra-doc links of the API documentation; this checks what rustdoc does not read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The workspace root (this crate's manifest directory).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `*.md` file of the repository, outside build directories, the fuzz corpus and hidden
/// directories.
fn markdown_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                let skip = name.starts_with('.') || name.starts_with("target") || name == "corpus";
                if !skip {
                    dirs.push(path);
                }
            } else if name.ends_with(".md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The text outside fenced code blocks and inline code spans, where links are links.
fn prose(markdown: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Inline code: drop what lies between backtick pairs.
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                out.push_str(part);
            }
        }
        out.push('\n');
    }
    out
}

/// The anchors GitHub gives a document's headings: lowercased, punctuation other than `-` and `_`
/// dropped, spaces made hyphens, and `-1`, `-2`, … after repeated ones.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut unique = slug.clone();
        let mut n = 1;
        while seen.contains(&unique) {
            unique = format!("{slug}-{n}");
            n += 1;
        }
        seen.insert(unique);
    }
    seen
}

/// The targets of the inline links `[text](target)` in `prose`.
fn link_targets(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = prose;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let end = rest.find([')', ' ', '\n']).unwrap_or(rest.len());
        out.push(rest[..end].to_owned());
    }
    out
}

#[test]
fn every_relative_link_and_anchor_in_the_markdown_resolves() {
    let files = markdown_files();
    // The documents that matter are all found (a walk that finds nothing checks nothing).
    for must in [
        "README.md",
        "cli/README.md",
        "docs/design.md",
        "benches/README.md",
        "tests/README.md",
    ] {
        assert!(files.contains(&root().join(must)), "{must} not found");
    }
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for target in link_targets(&prose(&text)) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let resolved: PathBuf = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let shown = format!(
                "{}: ({target})",
                file.strip_prefix(root()).unwrap().display()
            );
            if !resolved.exists() {
                broken.push(format!("{shown}: no such file or directory"));
            } else if !anchor.is_empty() && resolved.extension() == Some("md".as_ref()) {
                let headings = anchors(&std::fs::read_to_string(&resolved).unwrap());
                if !headings.contains(anchor) {
                    broken.push(format!("{shown}: no heading with this anchor"));
                }
            }
        }
    }
    assert!(
        checked >= 50,
        "only {checked} relative links found: the walk is broken"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_front_page_of_at_most_300_lines() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines: move details to docs/ (at most 300)"
    );
    // The two first commands of a fresh clone: the tool on the shipped sample, and the tests.
    assert!(readme.contains("cargo run --release -p gdvariant-cli -- decode"));
    assert!(readme.contains("cargo test --workspace --all-features"));
    assert!(Path::new(&root().join("examples/game_state.bin")).exists());
}

#[test]
fn the_anchor_rules_are_githubs() {
    let doc = "# A `code` title!\n## As encoded, and as the engine reads it\n# Notes\n# Notes\n```\n# not a heading\n```\n";
    let got: Vec<String> = anchors(doc).into_iter().collect();
    assert_eq!(
        got,
        [
            "a-code-title",
            "as-encoded-and-as-the-engine-reads-it",
            "notes",
            "notes-1"
        ]
    );
    assert_eq!(
        link_targets(&prose("see [a](b.md#c) and `[x](y)`\n```\n[p](q)\n```\n")),
        ["b.md#c"]
    );
}
