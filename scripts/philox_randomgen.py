"""Philox4x32-10 blocks from an independent implementation, the `randomgen` package's
`Philox(number=4, width=32)`, for `kernels-gpu/tests/random_philox.rs`.

    pip install randomgen==2.5.1 && python3 scripts/philox_randomgen.py

randomgen adds one to its 128-bit counter before each block, so the block of counter c
is the first four words drawn after setting the counter to c - 1.
"""
from randomgen import Philox

M32 = 0xFFFFFFFF
CASES = [
    ([1, 0, 0, 0], [0, 0]),
    ([0, 0, 1, 0], [7, 3]),
    ([251, 0, 0, 0], [42, 999_999]),
    ([0xFFFFFFFF, 0xFFFFF, 5, 0], [0xDEADBEEF, 0x12345678]),
    ([12345, 0, 2, 0], [1, 0xFFFFFFFF]),
    ([0x89ABCDEF, 0x01234567, 0x76543210, 0xFEDCBA98], [0x0F1E2D3C, 0x4B5A6978]),
]


def block(counter, key):
    c = sum(w << (32 * i) for i, w in enumerate(counter))
    k = key[0] | (key[1] << 32)
    bg = Philox(counter=(c - 1) % (1 << 128), key=k, number=4, width=32)
    return [int(w) & M32 for w in bg.random_raw(4)]


for counter, key in CASES:
    words = ", ".join(f"0x{w:08x}" for w in block(counter, key))
    ctr = ", ".join(f"0x{w:08x}" for w in counter)
    k = ", ".join(f"0x{w:08x}" for w in key)
    print(f"([{ctr}], [{k}], [{words}]),")
