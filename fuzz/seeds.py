"""What the seed scripts share: the repository's root, and `write`, which puts seed files in
fuzz/corpus/<target>/<sha1 of the seed> (an existing file is left as it is)."""
import hashlib
import pathlib

root = pathlib.Path(__file__).resolve().parent.parent


def write(target, seeds):
    out = root / "fuzz" / "corpus" / target
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for s in seeds:
        p = out / hashlib.sha1(s).hexdigest()
        if not p.exists():
            p.write_bytes(s)
            n += 1
    print(f"{n} new seed files in {out} ({len(seeds)} seeds)")
