#!/usr/bin/env python3
"""Writes the GGUF seed corpus (tests/fuzz/corpus/gguf/): small valid files and broken ones, built byte by byte
from the format description in include/gguf.h, never by our writer. Run once; the files are committed.

    tests/fuzz/make_corpus.py [output dir]

Files named valid_*.gguf must load; every other file is malformed in one way its name says. The unit test
tests/unit/gguf/corpus_test.cpp lists the message expected for each file, and fails for a file it does not list.
"""
import os
import struct
import sys

# gguf_type
U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
SCALAR = {U8: '<B', I8: '<b', U16: '<H', I16: '<h', U32: '<I', I32: '<i', F32: '<f', BOOL: '<B', U64: '<Q',
          I64: '<q', F64: '<d'}
# ggml_type: (value, elements per block, bytes per block)
GGML = {'f32': (0, 1, 4), 'f16': (1, 1, 2), 'q4_0': (2, 32, 18), 'q4_1': (3, 32, 20), 'q8_0': (8, 32, 34),
        'i8': (24, 1, 1)}


def string(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack('<Q', len(b)) + b


def header(n_tensors, n_kv, version=3, magic=b'GGUF'):
    return magic + struct.pack('<Iqq', version, n_tensors, n_kv)


def kv(key, typ, value):
    if typ == STR:
        return string(key) + struct.pack('<i', STR) + string(value)
    return string(key) + struct.pack('<i', typ) + struct.pack(SCALAR[typ], value)


def kv_array(key, typ, values):
    body = b''.join(string(v) if typ == STR else struct.pack(SCALAR[typ], v) for v in values)
    return string(key) + struct.pack('<iiQ', ARR, typ, len(values)) + body


def tensor_info(name, ne, typ, offset):
    t = GGML[typ][0] if isinstance(typ, str) else typ
    return (string(name) + struct.pack('<I', len(ne)) + b''.join(struct.pack('<q', n) for n in ne) +
            struct.pack('<iQ', t, offset))


def nbytes(ne, typ):
    _, blck, size = GGML[typ]
    n = 1
    for x in ne:
        n *= x
    return n // blck * size


def pad(b, alignment=32):
    return b + b'\0' * (-len(b) % alignment)


def gguf(kvs=(), tensors=(), alignment=32, version=3, pad_end=True):
    """A well-formed file: tensors are (name, ne, type); their data is a counting byte pattern."""
    infos, data, offset = b'', b'', 0
    for i, (name, ne, typ) in enumerate(tensors):
        infos += tensor_info(name, ne, typ, offset)
        chunk = bytes((i * 7 + j) % 251 for j in range(nbytes(ne, typ)))
        data += pad(chunk, alignment) if (pad_end or i + 1 < len(tensors)) else chunk
        offset += len(pad(chunk, alignment))
    meta = header(len(tensors), len(kvs), version) + b''.join(kvs) + infos
    return (pad(meta, alignment) if tensors else meta) + data


def raw(kvs=(), infos=(), n_tensors=None, n_kv=None, data=b'', version=3):
    """Whatever the caller says, counts included; padded to 32 before the data."""
    meta = header(len(infos) if n_tensors is None else n_tensors, len(kvs) if n_kv is None else n_kv, version)
    return pad(meta + b''.join(kvs) + b''.join(infos)) + data


ALL_SCALARS = [kv('a.u8', U8, 200), kv('a.i8', I8, -100), kv('a.u16', U16, 60000), kv('a.i16', I16, -30000),
               kv('a.u32', U32, 4000000000), kv('a.i32', I32, -2000000000), kv('a.f32', F32, 1.5),
               kv('a.bool', BOOL, 1), kv('a.str', STR, 'hello'), kv('a.u64', U64, 2**63 + 5),
               kv('a.i64', I64, -2**62), kv('a.f64', F64, -2.25)]
ALL_ARRAYS = [kv_array('b.' + n, t, v) for n, t, v in [
    ('u8', U8, [1, 2, 3]), ('i8', I8, [-1, 0, 1]), ('u16', U16, [1, 65535]), ('i16', I16, [-2, 2]),
    ('u32', U32, [7, 8, 9]), ('i32', I32, [-7]), ('f32', F32, [0.5, -0.5]), ('bool', BOOL, [1, 0, 1]),
    ('str', STR, ['x', '', 'yz']), ('u64', U64, [2**64 - 1]), ('i64', I64, [-1, 2]), ('f64', F64, [3.0]),
    ('empty', U32, [])]]
TWO_F32 = [('a', [4], 'f32'), ('b', [3, 2], 'f32')]
LLAMA_KV = [kv('general.architecture', STR, 'llama'), kv('general.name', STR, 'corpus seed'),
            kv('llama.block_count', U32, 1), kv('llama.embedding_length', U32, 32),
            kv_array('tokenizer.ggml.tokens', STR, ['<unk>', '<s>', '</s>', 'a', 'b']),
            kv_array('tokenizer.ggml.scores', F32, [0.0, 0.0, 0.0, -1.0, -2.0]),
            kv_array('tokenizer.ggml.token_type', I32, [2, 3, 3, 1, 1])]
LLAMA_TENSORS = [('token_embd.weight', [32, 5], 'q8_0'), ('blk.0.attn_norm.weight', [32], 'f32'),
                 ('blk.0.attn_q.weight', [32, 32], 'q4_0'), ('output.weight', [32, 5], 'f16')]

VALID = {
    'valid_empty': gguf(),
    'valid_all_scalar_kv': gguf(ALL_SCALARS),
    'valid_all_arrays': gguf(ALL_ARRAYS),
    'valid_tensors_f32': gguf([kv('general.name', STR, 'two')], TWO_F32),
    'valid_llama_tiny': gguf(LLAMA_KV, LLAMA_TENSORS),
    'valid_alignment_64': gguf([kv('general.alignment', U32, 64)], TWO_F32, alignment=64),
    'valid_version_2': gguf([kv('k', U8, 1)], TWO_F32, version=2),
    'valid_last_padding_missing': gguf([], TWO_F32, pad_end=False),
    'valid_zero_size_tensor': gguf([], [('empty', [0], 'f32'), ('one', [1], 'f32')]),
    'valid_3d_i8': gguf([], [('cube', [2, 3, 4], 'i8')]),
}

F32_A = tensor_info('a', [4], 'f32', 0)
BROKEN = {
    'empty_file': b'',
    'truncated_magic': b'GG',
    'bad_magic': b'GGUX' + VALID['valid_empty'][4:],
    'version_0': header(0, 0, version=0),
    'version_1': header(0, 0, version=1),
    'version_4': header(0, 0, version=4),
    'big_endian': b'GGUF' + struct.pack('>Iqq', 3, 0, 0),
    'truncated_header': header(0, 0)[:12],
    'negative_tensor_count': header(-1, 0),
    'negative_kv_count': header(0, -5),
    'huge_tensor_count': header(2**62, 0),
    'huge_kv_count': header(0, 2**40) + kv('k', U8, 1),
    'huge_key_length': header(0, 1) + struct.pack('<Q', 2**63) + b'key' + b'\0' * 12,
    'huge_string_length': header(0, 1) + string('k') + struct.pack('<iQ', STR, 2**40) + b'abc',
    'huge_array_length': header(0, 1) + string('k') + struct.pack('<iiQ', ARR, U32, 2**40) + b'\0' * 16,
    'array_bytes_overflow': header(0, 1) + string('k') + struct.pack('<iiQ', ARR, U64, 2**62) + b'\0' * 16,
    'huge_string_array': header(0, 1) + string('k') + struct.pack('<iiQ', ARR, STR, 2**61) + string('a'),
    'truncated_in_kv_value': (header(0, 1) + kv('k', U64, 7))[:-3],
    'truncated_in_string_array': (header(0, 1) + kv_array('k', STR, ['abc', 'def']))[:-2],
    'empty_key': header(0, 1) + kv('', U8, 1) + b'\0' * 4,
    'key_with_nul': header(0, 1) + kv('a\0b', U8, 1),
    'duplicate_key': header(0, 2) + kv('k', U8, 1) + kv('k', U32, 2),
    'unknown_kv_type': header(0, 1) + string('k') + struct.pack('<iI', 13, 0),
    'negative_kv_type': header(0, 1) + string('k') + struct.pack('<iI', -1, 0),
    'array_of_arrays': header(0, 1) + string('k') + struct.pack('<iiQ', ARR, ARR, 1) + struct.pack('<iiQ', ARR, U8, 0),
    'unknown_array_type': header(0, 1) + string('k') + struct.pack('<iiQ', ARR, 99, 1) + b'\0' * 8,
    'alignment_u64': raw([kv('general.alignment', U64, 32)], [F32_A], data=b'\0' * 16),
    'alignment_not_power_of_2': raw([kv('general.alignment', U32, 48)], [F32_A], data=b'\0' * 16),
    'alignment_zero': raw([kv('general.alignment', U32, 0)], [F32_A], data=b'\0' * 16),
    'alignment_too_large': raw([kv('general.alignment', U32, 2**30)], [F32_A], data=b'\0' * 16),
    'alignment_array': raw([kv_array('general.alignment', U32, [32])], [F32_A], data=b'\0' * 16),
    'tensor_name_too_long': raw(infos=[tensor_info('n' * 64, [4], 'f32', 0)], data=b'\0' * 16),
    'tensor_name_with_nul': raw(infos=[tensor_info('a\0b', [4], 'f32', 0)], data=b'\0' * 16),
    'duplicate_tensor_name': raw(infos=[F32_A, tensor_info('a', [4], 'f32', 32)], data=b'\0' * 48),
    'zero_dims': raw(infos=[tensor_info('a', [], 'f32', 0)]),
    'five_dims': raw(infos=[tensor_info('a', [1, 1, 1, 1, 1], 'f32', 0)], data=b'\0' * 4),
    'negative_extent': raw(infos=[tensor_info('a', [4, -1], 'f32', 0)]),
    'unknown_tensor_type': raw(infos=[tensor_info('a', [4], 1000, 0)], data=b'\0' * 16),
    'removed_tensor_type': raw(infos=[tensor_info('a', [32], 4, 0)], data=b'\0' * 32),
    'row_not_whole_blocks': raw(infos=[tensor_info('a', [33], 'q4_0', 0)], data=b'\0' * 64),
    'element_count_overflow': raw(infos=[tensor_info('a', [2**32, 2**32], 'f32', 0)]),
    'byte_size_overflow': raw(infos=[tensor_info('a', [2**62], 'f32', 0)]),
    # found by the fuzzer: the packed size fits, but ggml_nbytes' ne[0] * block bytes overflows
    'row_bytes_overflow': raw(infos=[tensor_info('a', [2**60], 'q4_1', 0)]),
    'misaligned_offset': raw(infos=[F32_A, tensor_info('b', [4], 'f32', 8)], data=b'\0' * 48),
    'overlapping_offsets': raw(infos=[tensor_info('a', [16], 'f32', 0), tensor_info('b', [4], 'f32', 32)],
                               data=b'\0' * 96),
    'gap_between_tensors': raw(infos=[F32_A, tensor_info('b', [4], 'f32', 64)], data=b'\0' * 96),
    'first_offset_not_zero': raw(infos=[tensor_info('a', [4], 'f32', 32)], data=b'\0' * 64),
    'truncated_in_tensor_info': header(1, 1) + kv('pad', STR, 'p' * 40) + F32_A[:12],
    # well-formed headers whose data is not in the file: refused when the data is to be loaded
    'data_out_of_file': raw(infos=[F32_A, tensor_info('b', [4], 'f32', 32)], data=b'\0' * 40),
    'tensor_4tib': raw(infos=[tensor_info('huge', [2**40], 'f32', 0)], data=b'\0' * 64),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus', 'gguf')
    os.makedirs(out, exist_ok=True)
    for name, data in {**VALID, **BROKEN}.items():
        with open(os.path.join(out, name + '.gguf'), 'wb') as f:
            f.write(data)
    print(f'{len(VALID)} valid and {len(BROKEN)} broken files in {out}')


if __name__ == '__main__':
    main()
