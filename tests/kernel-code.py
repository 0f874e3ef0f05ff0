#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The machine code of each kernel in a cubin: its name, size and a hash
of its bytes, one line a kernel, sorted. Two builds whose lines are equal
run the same code, so a change meant to leave kernels as they are can be
checked without a GPU:

    nvcc -arch=sm_90 -cubin -o before.cubin FILE.cu   (and after.cubin)
    diff <(tests/kernel-code.py before.cubin) <(tests/kernel-code.py after.cubin)

The hash nvcc puts in the names of a file's anonymous namespace changes
with the file's text, so it is left out of the names."""
import hashlib
import re
import struct
import sys


def kernels(path):
    data = open(path, 'rb').read()
    if data[:4] != b'\x7fELF' or data[4] != 2:
        sys.exit(f'{path}: not a 64-bit ELF cubin')
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    sections = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
                for i in range(shnum)]
    names_at = sections[shstrndx][4]
    for s in sections:
        start = names_at + s[0]
        name = data[start:data.index(b'\0', start)].decode()
        if not name.startswith('.text.'):
            continue
        name = re.sub(r'(_GLOBAL__N__)[0-9a-f]{8}_', r'\1', name[6:])
        name = re.sub(r'(_cu_)[0-9a-f]{8}(_\d+)?', r'\1', name)
        code = data[s[4]:s[4] + s[5]]
        yield f'{name} {len(code)} {hashlib.sha256(code).hexdigest()[:16]}'


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print('\n'.join(sorted(kernels(sys.argv[1]))))
