#!/usr/bin/env python3
# tests/late_steal.py SRC DST TICKS M...: a copy of the v2 trace SRC whose
# batches of the Ms given (those that write only ProcSteals: sysmon) start
# TICKS clock ticks later, so that each steal is written after the robbed
# M's next events, as a loaded machine may write it. Go's reader then
# puts what that M does after the steal. Used by tests/scantest.sh and
# tests/statsfast.sh.
import sys
src, dst, later, ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), {int(m) for m in sys.argv[4:]}
b = bytearray(open(src, "rb").read())
def uvarint(i):
	x = s = 0
	while True:
		c = b[i]; i += 1
		x |= (c & 0x7f) << s; s += 7
		if c < 0x80:
			return x, i
def put(i, n, x):  # x as a varint of exactly n bytes (padded)
	for k in range(n):
		b[i + k] = (x & 0x7f) | (0x80 if k < n - 1 else 0); x >>= 7
	assert x == 0
i = 16
while i < len(b):
	t = b[i]; i += 1
	if t == 52:  # EndOfGeneration
		continue
	assert t in (1, 49), t
	if t == 49:
		i += 1
	_, i = uvarint(i); m, i = uvarint(i)
	at = i; ts, i = uvarint(i)
	if m in ms:
		put(at, i - at, ts + later)
	size, i = uvarint(i)
	i += size
open(dst, "wb").write(b)
