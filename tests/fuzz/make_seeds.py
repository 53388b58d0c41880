#!/usr/bin/python3
"""Writes the binary seed inputs of tests/fuzz/corpus (the wire protocols and
the checkpoint format), each a small well-formed example of its format, so
the fuzzers start from messages the decoders accept. The text seeds (YAML
configs, TF_CONFIG) are written by hand. Run from anywhere; it overwrites
only the seed-*.bin files it names."""
import os
import struct
import zlib

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target, name, data):
    os.makedirs(os.path.join(HERE, target), exist_ok=True)
    with open(os.path.join(HERE, target, "seed-" + name + ".bin"), "wb") as f:
        f.write(data)


# --- TCP store (core/cluster/tcp_store_wire.h)
def store_frame(op, body=b""):
    return struct.pack("<I", len(body) + 1) + bytes([op]) + body


def sbytes(b):
    return struct.pack("<I", len(b)) + b


def store_hello(rank, world, token):
    return b"STRS" + struct.pack("<HHii", 1, len(token), rank, world) + token


hello = store_hello(1, 2, b"job-token")
write("tcp_store_wire", "set", hello + store_frame(1, sbytes(b"key") + sbytes(b"value")))
write("tcp_store_wire", "get", hello + store_frame(2, sbytes(b"rank/0") + struct.pack("<q", 5000)))
write("tcp_store_wire", "add", hello + store_frame(3, sbytes(b"counter") + struct.pack("<q", -3)))
write("tcp_store_wire", "session",
      hello + store_frame(1, sbytes(b"a") + sbytes(b"1")) +
      store_frame(3, sbytes(b"n") + struct.pack("<q", 1)) + store_frame(4))
write("tcp_store_wire", "replies",
      store_frame(0x80, b"value") + store_frame(0x80, struct.pack("<q", 42)) +
      store_frame(0x81, struct.pack("<i", -4) + sbytes(b"no key 'x' within 5s")))
# For parse_request_head, which decides from a request's first bytes what the
# server buffers and counts: a set whose value length disagrees with its
# frame's, a key of the longest length, a big set of which only the head has
# arrived, and heads the server must refuse (a key over 4096 bytes, a frame
# over the limit).
write("tcp_store_wire", "head-value-length-lies",
      hello + store_frame(1, sbytes(b"key") + struct.pack("<I", 9) + b"value"))
write("tcp_store_wire", "head-longest-key",
      hello + store_frame(2, sbytes(b"k" * 4096) + struct.pack("<q", 10)))
write("tcp_store_wire", "head-big-set-partial",
      hello + struct.pack("<I", 1 + 4 + 3 + 4 + (1 << 20)) + bytes([1]) + sbytes(b"big") +
      struct.pack("<I", 1 << 20) + b"v" * 16)
write("tcp_store_wire", "head-refused",
      struct.pack("<I", 1 + 4 + 4097 + 8) + bytes([3]) + struct.pack("<I", 4097) + b"k" * 8)
write("tcp_store_wire", "head-frame-over-limit",
      hello + struct.pack("<I", 0x7fffffff) + bytes([1]) + sbytes(b"k"))


# --- parameter server (core/strategy/parameter_server/ps_wire.h)
def ps_frame(op, seq, payload=b""):
    return struct.pack("<IBQ", 9 + len(payload), op, seq) + payload


def floats(values):
    return struct.pack("<BQ", 1, len(values)) + struct.pack("<%df" % len(values), *values)


def ps_hello(worker, token):
    return b"STPS" + struct.pack("<HHi", 1, len(token), worker) + token


def session(choice, token=b""):
    frames = [
        (1, struct.pack("<I", 0) + floats([1.0, 2.0, 3.0])),  # init shard 0
        (4, struct.pack("<q", 4)),                             # next_step of 4
        (2, struct.pack("<Iq", 0, 0)),                          # pull
        (3, struct.pack("<Iq", 0, 0) + floats([0.5, 0.5, 0.5])),  # push
        (5, struct.pack("<q", 0)),                             # step_done 0
        (6, b""),                                              # heartbeat
        (7, b"\x01"),                                          # idle
        (8, b""),                                              # done
    ]
    body = b"".join(ps_frame(op, seq, p) for seq, (op, p) in enumerate(frames, start=1))
    return bytes([choice]) + ps_hello(0, token) + body


write("ps_wire", "hogwild-coordinator", session(0b00000010))
write("ps_wire", "sync-token", session((4 << 3) | 0b110, b"fuzz-token"))
write("ps_wire", "aeasgd", session(6 << 3))
write("ps_wire", "client-replies",
      bytes([1]) + ps_frame(0x80, 1, struct.pack("<qq", 3, 1) + floats([1.0, 2.0])) +
      ps_frame(0x81, 2) + ps_frame(0x82, 3, struct.pack("<i", -2) + b"bad shard"))


# --- checkpoint (core/checkpoint/checkpoint_format.h)
def checkpoint(step, tensors, metadata):
    body = b""
    for name, shape, values in tensors:
        body += sbytes(name) + struct.pack("<I", len(shape))
        body += b"".join(struct.pack("<q", d) for d in shape)
        body += struct.pack("<%df" % len(values), *values)
    for key, value in metadata:
        body += sbytes(key) + sbytes(value)
    length = 40 + len(body) + 4
    head = b"STRATACK" + struct.pack("<IIQqII", 1, 0, length, step, len(tensors), len(metadata))
    data = head + body
    return data + struct.pack("<I", zlib.crc32(data))


write("checkpoint", "two-tensors",
      checkpoint(150, [(b"dense/kernel", [2, 3], [0.5] * 6), (b"dense/bias", [3], [0.0, 1.0, -1.0])],
                 [(b"strategy", b"mirrored"), (b"replicas", b"4")]))
write("checkpoint", "scalar-and-empty",
      checkpoint(0, [(b"s", [], [7.0]), (b"e", [0, 5], [])], []))
