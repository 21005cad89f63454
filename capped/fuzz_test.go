package capped

import (
	"bytes"
	"testing"
)

// FuzzDecodeRecord: decoding arbitrary bytes never panics, and whatever
// decodes re-encodes to the same bytes.
func FuzzDecodeRecord(f *testing.F) {
	b := make([]byte, recordSize(5))
	encodeRecord(b, recHeader{length: 5, seq: 7, oldest: 3, prevOff: DataStart, lap: 2, kind: kindRecord}, []byte("hello"))
	f.Add(b)
	w := make([]byte, RecordOverhead)
	encodeRecord(w, recHeader{seq: 9, oldest: 4, prevOff: 2048, lap: 1, kind: kindWrap}, nil)
	f.Add(w)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, payload, err := decodeRecord(data)
		if err != nil {
			return
		}
		if int(h.length) != len(payload) {
			t.Fatalf("length %d, payload %d", h.length, len(payload))
		}
		out := make([]byte, RecordOverhead+len(payload))
		encodeRecord(out, h, payload)
		if !bytes.Equal(out, data[:len(out)]) {
			t.Fatalf("re-encoding differs")
		}
	})
}

// FuzzDecodeHeader: decoding arbitrary bytes never panics, and a decoded
// header re-encodes to the same used bytes.
func FuzzDecodeHeader(f *testing.F) {
	b := make([]byte, headerSlotSize)
	(&header{gen: 3, capacity: 8192, anchorSeq: 5, anchorOff: 2048, anchorLap: 2, firstSeq: 4, firstOff: 1024, syncedSeq: 5, seqLimit: 70000}).encode(b)
	f.Add(b)
	f.Add(b[:headerUsed-1])
	f.Add(make([]byte, headerSlotSize))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := decodeHeader(data)
		if err != nil {
			return
		}
		out := make([]byte, headerSlotSize)
		h.encode(out)
		if !bytes.Equal(out[:headerUsed], data[:headerUsed]) {
			t.Fatalf("re-encoding differs")
		}
		if h.anchorOff < DataStart || h.anchorOff >= dataEnd(h.capacity) {
			t.Fatalf("accepted anchor %d", h.anchorOff)
		}
	})
}
