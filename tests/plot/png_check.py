#!/usr/bin/env python3
"""Checks that a screenshot shows the report: decodes the PNG (zlib and
numpy, no PIL) and requires enough non-white pixels, enough distinct
colours, and the report's first region colours (the CSS rules .cN{fill:#..}
of REPORT) as exact pixel values, which only rendered bars and boxes have.

usage: png_check.py SHOT.png REPORT.html [MIN_COLOURS] [REGION_COLOURS] [FILE_COLOURS]
FILE_COLOURS: the first that many colours of a comparison's files (.fN)
must be on the screenshot too.
Exit 0 ok, 1 a check failed, 77 numpy missing.
"""
import re
import struct
import sys
import zlib

try:
    import numpy as np
except ImportError as e:
    print("png_check: %s" % e)
    sys.exit(77)


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        typ, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if typ == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT":
            idat.append(body)
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG type %d depth %d interlace %d: expected 8-bit RGB(A), not interlaced"
                         % (ctype, depth, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    out = np.zeros((h, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.uint8)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1)
        if f == 0:
            cur = line.copy()
        elif f == 1:
            cur = (np.cumsum(line.reshape(w, bpp).astype(np.uint64), axis=0) & 0xFF).astype(np.uint8).reshape(-1)
        elif f == 2:
            cur = line + prev
        elif f in (3, 4):
            a = line.tolist()
            b = prev.tolist()
            c = [0] * stride
            for i in range(stride):
                left = c[i - bpp] if i >= bpp else 0
                if f == 3:
                    c[i] = (a[i] + ((left + b[i]) >> 1)) & 0xFF
                else:
                    ul = b[i - bpp] if i >= bpp else 0
                    p = left + b[i] - ul
                    pa, pb, pc = abs(p - left), abs(p - b[i]), abs(p - ul)
                    pred = left if pa <= pb and pa <= pc else (b[i] if pb <= pc else ul)
                    c[i] = (a[i] + pred) & 0xFF
            cur = np.array(c, dtype=np.uint8)
        else:
            raise ValueError("row %d: filter %d" % (y, f))
        out[y] = cur
        prev = cur
    px = out.reshape(h, w, bpp)[:, :, :3]
    return w, h, px


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    min_colours = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    n_region = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    n_file = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    try:
        w, h, px = decode(sys.argv[1])
    except (OSError, ValueError, zlib.error) as e:
        print("png_check: FAIL: %s: %s" % (sys.argv[1], e))
        return 1
    flat = px.reshape(-1, 3).astype(np.uint32)
    codes = flat[:, 0] << 16 | flat[:, 1] << 8 | flat[:, 2]
    colours = set(np.unique(codes).tolist())
    nonwhite = int(np.count_nonzero(codes != 0xFFFFFF))
    fails = []
    if len(colours) < min_colours:
        fails.append("%d distinct colours, expected at least %d" % (len(colours), min_colours))
    if nonwhite < 0.02 * w * h:
        fails.append("%d non-white pixels of %d: expected at least 2%%" % (nonwhite, w * h))
    css = open(sys.argv[2], encoding="utf-8").read()
    for prefix, n, what in (("c", n_region, "region"), ("f", n_file, "file")):
        found = re.findall(r"\.%s(\d+)\{fill:#([0-9a-f]{6})\}" % prefix, css)[:n]
        if len(found) < n:
            fails.append("report has %d %s colours, expected %d" % (len(found), what, n))
        for idx, hexcol in found:
            if int(hexcol, 16) not in colours:
                fails.append("%s colour %s%s #%s not on the screenshot" % (what, prefix, idx, hexcol))
    for f in fails:
        print("png_check: FAIL: %s" % f)
    if fails:
        return 1
    print("png_check: ok (%dx%d, %d colours, %.1f%% non-white)" % (w, h, len(colours), 100.0 * nonwhite / (w * h)))
    return 0


sys.exit(main())
