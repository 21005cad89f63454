package capped

import (
	"fmt"
	"testing"
)

// TestPowerCutAtAnchorReuse is the regression test for a power-loss bug
// found by fuzz.TestRingFaults: without SyncEveryAppend, Append wrote the
// header that moves the anchor without fsyncing it, then overwrote the
// old anchor record; a power cut that kept that record write and dropped
// the header left a durable header naming a destroyed record ("anchor
// record N (synced): ..."), and Open refused the file.
//
// The test logs every write and fsync of appends that move the anchor
// several times, and checks two things:
//   - the ordering rule itself: between a header write that moves the
//     anchor off record A and the first write over A's bytes there is an
//     fsync (and the scenario occurs at least twice);
//   - recovery from the power-cut images around every write: the durable
//     bytes (as of the last fsync) plus that one write, whole or torn
//     (every earlier unsynced write lost), and the durable bytes plus
//     every unsynced data write so far with the unsynced header writes
//     lost. Each must open, pass Check, return only appended data, and
//     keep every record that was promised durable.
func TestPowerCutAtAnchorReuse(t *testing.T) {
	t.Parallel()
	for _, sync := range []bool{false, true} {
		t.Run(fmt.Sprint("SyncEveryAppend=", sync), func(t *testing.T) {
			m := newMemFS()
			r, err := Create("ring", MinCapacity, Options{FS: m, SyncEveryAppend: sync})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			lim := Limits{MaxRecords: 20}
			want := map[uint64][]byte{}
			add := func(i int) uint64 {
				d := payload(uint64(i), 1+(i*37)%300)
				seq, _, err := r.Append(d, lim, nil)
				if err != nil {
					t.Fatal(err)
				}
				want[seq] = d
				return seq
			}
			for i := 0; i < 30; i++ {
				add(i)
			}
			// The header's anchor is now a record, and synced.
			if err := r.Sync(); err != nil {
				t.Fatal(err)
			}
			promised := r.LastSeq()
			base := m.image("ring")
			m.startLog()
			type ack struct {
				writes int // writes logged when the append returned
				seq    uint64
			}
			var acks []ack
			for i := 30; i < 90; i++ {
				seq := add(i)
				acks = append(acks, ack{len(m.writes()), seq})
			}
			writes, syncs := m.writes(), m.syncPoints()

			// promisedAt is the newest record that must survive a power
			// cut before write k: the Synced one, or with
			// SyncEveryAppend every acknowledged one.
			promisedAt := func(k int) uint64 {
				p := promised
				for _, a := range acks {
					if sync && a.writes <= k {
						p = max(p, a.seq)
					}
				}
				return p
			}
			check := func(img []byte, k int, ctx string) {
				t.Helper()
				r2, err := openImage(img)
				if err != nil {
					t.Fatalf("%s: reopen: %v", ctx, err)
				}
				defer r2.Close()
				seqs := verifyRecovered(t, r2, want, ctx)
				if p := promisedAt(k); len(seqs) == 0 || seqs[len(seqs)-1] < p {
					t.Fatalf("%s: recovered %v, but %d was durable", ctx, seqs, p)
				}
			}

			cur := append([]byte(nil), base...)     // what the process sees
			durable := append([]byte(nil), base...) // what the disk holds
			var unsynced []write                    // writes since the last fsync
			nextSync := 0
			// The anchor the durable header names, and the one the newest
			// header names once it moved off a record that still counts.
			hdr, err := decodeHeader(base[(r.hdrGen%2)*headerSlotSize:][:headerSlotSize])
			if err != nil {
				t.Fatal(err)
			}
			type span struct{ off, end int64 }
			var pending []span // old anchors whose bytes wait for an fsync
			var moved []span   // old anchors whose bytes were not reused yet
			moves, reuses := 0, 0
			anchorSpan := func(img []byte, h header) span {
				rh, err := decodeRecHeader(img[h.anchorOff:])
				if err != nil {
					t.Fatalf("anchor %d at %d: %v", h.anchorSeq, h.anchorOff, err)
				}
				return span{h.anchorOff, h.anchorOff + recordSize(int(rh.length))}
			}
			for k, w := range writes {
				for nextSync < len(syncs) && syncs[nextSync] <= k {
					durable = append(durable[:0], cur...)
					unsynced, pending = nil, nil
					nextSync++
				}
				for i := 0; i < len(moved); i++ {
					if a := moved[i]; overlaps(w.off, w.off+int64(len(w.data)), a.off, a.end) {
						moved = append(moved[:i], moved[i+1:]...)
						reuses++
						i--
					}
				}
				isHeader := w.off < DataStart
				if isHeader {
					h, err := decodeHeader(w.data)
					if err != nil {
						t.Fatalf("write %d: header: %v", k, err)
					}
					if hdr.anchorSeq != 0 && h.anchorSeq != hdr.anchorSeq {
						a := anchorSpan(cur, hdr)
						pending, moved = append(pending, a), append(moved, a)
						moves++
					}
					hdr = h
				}

				ctx := fmt.Sprintf("power cut at write %d (off %d, %d bytes)", k, w.off, len(w.data))
				for _, cut := range []int{0, len(w.data) / 2, len(w.data) - 1, len(w.data)} {
					img := append([]byte(nil), durable...)
					copy(img[w.off:], w.data[:cut])
					check(img, k, fmt.Sprintf("%s, only it landed, torn at %d", ctx, cut))
				}
				img := append([]byte(nil), durable...)
				for _, u := range append(unsynced, w) {
					if u.off >= DataStart {
						copy(img[u.off:], u.data)
					}
				}
				check(img, k, ctx+", every unsynced data write landed, no unsynced header")

				// The ordering rule (checked after the images, so that on failure
				// the power-cut outcome is reported first).
				for _, a := range pending {
					if overlaps(w.off, w.off+int64(len(w.data)), a.off, a.end) {
						t.Fatalf("write %d (off %d, %d bytes) overwrites the old anchor [%d, %d) before the header that moved it was fsynced", k, w.off, len(w.data), a.off, a.end)
					}
				}
				copy(cur[w.off:], w.data)
				unsynced = append(unsynced, w)
			}
			if moves < 2 || reuses < 2 {
				t.Fatalf("the anchor moved off a record %d times and its bytes were reused %d times; the workload must do both at least twice", moves, reuses)
			}
			t.Logf("%d writes, %d fsyncs, %d anchor moves off a record, %d reuses", len(writes), len(syncs), moves, reuses)
		})
	}
}
