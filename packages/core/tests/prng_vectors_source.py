"""Builds prng_vectors.json from the implementation (run after the reference test passes).

    python3 packages/core/tests/prng_vectors_source.py > packages/core/src/eutaxy/core/prng_vectors.json
"""

from __future__ import annotations

import json

from eutaxy.core.prng import STREAM_NAMES, Xoshiro128, seed_words

#: Seeds covering the empty string, ASCII scenario names, non-ASCII (two- and three-byte
#: UTF-8) and an astral character (four bytes, a surrogate pair in JavaScript).
SEEDS = ("", "queue-duplicate-write", "refund-lost-update", "Zürich-Ω-日本", "dice-🎲")
OUTPUTS = 8


def build() -> dict:
    reference = Xoshiro128((1, 2, 3, 4))
    vectors = []
    for seed in SEEDS:
        for name in (None, *STREAM_NAMES):
            words = seed_words(seed, name)
            draws = Xoshiro128(words)
            outputs = [draws.next_u32() for _ in range(OUTPUTS)]
            below = Xoshiro128(words)
            random = Xoshiro128(words)
            vectors.append(
                {
                    "seed": seed,
                    "name": name,
                    "words": list(words),
                    "outputs": outputs,
                    "below10": [below.below(10) for _ in range(4)],
                    "random": [random.random() for _ in range(4)],
                }
            )
    return {
        "algorithm": "xoshiro128** 1.1 over uint32 words",
        "seeding": "words = first 16 bytes of SHA-256(UTF-8(seed, or seed + '/' + name)) as 4 little-endian uint32; all-zero -> [1,0,0,0]",
        "below": "next_u32() % n",
        "random": "next_u32() / 2**32",
        "reference": {"words": [1, 2, 3, 4], "outputs": [reference.next_u32() for _ in range(10)]},
        "vectors": vectors,
    }


def render() -> str:
    """One field per line and one vector per line, so a diff shows which stream changed."""
    data = build()
    lines = []
    for field, value in data.items():
        if field == "vectors":
            continue
        lines.append(f"  {json.dumps(field)}: {json.dumps(value, ensure_ascii=False)},")
    vectors = [f"    {json.dumps(vector, ensure_ascii=False)}" for vector in data["vectors"]]
    return "{\n" + "\n".join(lines) + '\n  "vectors": [\n' + ",\n".join(vectors) + "\n  ]\n}\n"


if __name__ == "__main__":
    print(render(), end="")
