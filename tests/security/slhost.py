"""A stand-in for `scope-likwid run`'s helper host (core/trust/helper_host.h), for
the tests: a listener on an abstract Unix socket that plays the host right
(it knows the key), wrong, or not at all, and records what it was sent.

    slhost.py NAME MODE READY LOG [KEY]

MODE: hangup (closes at once), garbage (answers the hello with junk and
logs how many bytes it got in all),
mute (reads the hello, answers nothing), refuse (the handshake right, then
refuses the request), silent (the handshake right, then never answers the
request), squat (what another user does with a name run left: take
whatever comes, say "started", hand a fake "wrote /etc/hostname" to any
descriptor it got, then "ended 0"). READY is made once it listens; LOG
gets every byte received and the descriptors' targets (squat).
SipHash-2-4 is written out here from its specification, independently of
core/trust/mac.c."""
import os
import socket
import struct
import sys
import time

MASK = (1 << 64) - 1


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & MASK


def siphash24(key, data):
    k0, k1 = struct.unpack("<QQ", key)
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d,
         k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]

    def rnd():
        v[0] = (v[0] + v[1]) & MASK; v[1] = _rotl(v[1], 13) ^ v[0]; v[0] = _rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & MASK; v[3] = _rotl(v[3], 16) ^ v[2]
        v[0] = (v[0] + v[3]) & MASK; v[3] = _rotl(v[3], 21) ^ v[0]
        v[2] = (v[2] + v[1]) & MASK; v[1] = _rotl(v[1], 17) ^ v[2]; v[2] = _rotl(v[2], 32)

    whole = len(data) - len(data) % 8
    for i in range(0, whole, 8):
        m, = struct.unpack("<Q", data[i:i + 8])
        v[3] ^= m; rnd(); rnd(); v[0] ^= m
    last = (len(data) & 0xff) << 56
    for i, c in enumerate(data[whole:]):
        last |= c << (8 * i)
    v[3] ^= last; rnd(); rnd(); v[0] ^= last
    v[2] ^= 0xff
    for _ in range(4):
        rnd()
    return v[0] ^ v[1] ^ v[2] ^ v[3]


assert siphash24(bytes(range(16)), bytes(range(15))) == 0xa129ca6149be45e5

HELLO = 8 + 16           # magic, nonce
REQUEST_HEAD = 8 + 4 * 8 + 8 + 2 * 16 * 8


def tag(key, by_host, shim_nonce, host_nonce):
    return siphash24(key, (b"host tag" if by_host else b"shim tag") + shim_nonce + host_nonce)


def recv_exact(c, n):
    got = b""
    while len(got) < n:
        b = c.recv(n - len(got))
        if not b:
            break
        got += b
    return got


def handshake(c, key):
    hello = recv_exact(c, HELLO)
    nonce = os.urandom(16)
    c.sendall(b"SLPROF2\0" + nonce + struct.pack("<Q", tag(key, 1, hello[8:24], nonce)))


def squat(c, log):
    """Everything the victim's shim sends, its descriptors used as another
    user would use them."""
    data, fds, answered = b"", [], False
    c.settimeout(1)
    try:
        while True:
            msg, anc, _, _ = c.recvmsg(65536, socket.CMSG_SPACE(16 * 4))
            for level, kind, payload in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds += list(struct.unpack("%di" % (len(payload) // 4), payload[:len(payload) // 4 * 4]))
            if not msg:
                break
            data += msg
            if len(data) == HELLO and not answered:
                # a host would answer a hello here: a squatter answers junk
                c.sendall(b"SLPROF2\0" + os.urandom(24))
                answered = True
    except (socket.timeout, OSError):
        pass    # all of it came: the shim waits for an answer
    with open(log, "ab") as f:
        f.write(b"BYTES %d\n" % len(data))
        f.write(data.replace(b"\0", b"\n"))
        f.write(b"\nFDS %d\n" % len(fds))
        for fd in fds:
            try:
                f.write(os.readlink("/proc/self/fd/%d" % fd).encode() + b"\n")
                os.write(fd, b"proof 0000000000000000\n/etc/hostname\n")
            except OSError:
                pass
    try:
        c.sendall(struct.pack("ii", 1, os.getpid()) + struct.pack("ii", 3, 0))
    except OSError:
        pass


def main():
    name, mode, ready, log = sys.argv[1:5]
    key = bytes.fromhex(sys.argv[5]) if len(sys.argv) > 5 else bytes(16)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0" + name)
    s.listen(8)
    open(ready, "w").close()
    while True:
        c, _ = s.accept()
        if mode == "hangup":
            c.close()
        elif mode == "garbage":
            got = recv_exact(c, HELLO)
            c.sendall(b"\x07" * 32)
            c.settimeout(1)
            try:
                while True:
                    b = c.recv(65536)
                    if not b:
                        break
                    got += b
            except (socket.timeout, OSError):
                pass
            with open(log, "a") as f:
                f.write("BYTES %d\n" % len(got))
            c.close()
        elif mode == "mute":
            recv_exact(c, HELLO)
            time.sleep(30)
        elif mode == "refuse":
            handshake(c, key)
            recv_exact(c, REQUEST_HEAD)
            c.sendall(struct.pack("ii", 2, 1))
            c.close()
        elif mode == "silent":
            handshake(c, key)
            c.recv(65536)
            time.sleep(30)
        elif mode == "squat":
            squat(c, log)
            c.close()


if __name__ == "__main__":
    main()
