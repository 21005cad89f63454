package capped

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// On-disk format, version 1. See doc.go for the description.
const (
	formatVersion  = 1
	headerSlotSize = 512
	// DataStart is the offset of the first record: the two header slots
	// come first.
	DataStart = 2 * headerSlotSize
	// RecordOverhead is the fixed per-record header size; each record
	// occupies RecordOverhead+len(data) bytes rounded up to 8.
	RecordOverhead = 40
	recAlign       = 8
	// MinCapacity is the smallest file size Create accepts (MongoDB's
	// smallest capped size).
	MinCapacity = 4096
	// MaxCapacity is the largest file size Create accepts (1 PiB, the
	// largest capped size docs/capped.md §7.1 allows).
	MaxCapacity = 1 << 50
	// maxPayload bounds one record's data (the length field is 32 bits).
	maxPayload = 1<<31 - 1

	headerUsed  = 92
	headerMagic = "TTLKVCAP"

	kindRecord = 1
	kindWrap   = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header is one header slot.
type header struct {
	gen       uint64 // the newer valid slot (higher gen) wins
	capacity  int64  // file size
	anchorSeq uint64 // a record recovery starts from (0: ring empty, head at anchorOff)
	anchorOff int64
	anchorLap uint32
	firstSeq  uint64 // oldest live sequence when the header was written
	firstOff  int64
	syncedSeq uint64 // every record with seq <= syncedSeq was fsynced
	seqLimit  uint64 // no sequence >= seqLimit was issued before this header
}

func (h *header) encode(b []byte) {
	clear(b[:headerSlotSize])
	copy(b[0:8], headerMagic)
	binary.LittleEndian.PutUint32(b[8:], formatVersion)
	binary.LittleEndian.PutUint64(b[16:], h.gen)
	binary.LittleEndian.PutUint64(b[24:], uint64(h.capacity))
	binary.LittleEndian.PutUint64(b[32:], h.anchorSeq)
	binary.LittleEndian.PutUint64(b[40:], uint64(h.anchorOff))
	binary.LittleEndian.PutUint32(b[48:], h.anchorLap)
	binary.LittleEndian.PutUint64(b[56:], h.firstSeq)
	binary.LittleEndian.PutUint64(b[64:], uint64(h.firstOff))
	binary.LittleEndian.PutUint64(b[72:], h.syncedSeq)
	binary.LittleEndian.PutUint64(b[80:], h.seqLimit)
	binary.LittleEndian.PutUint32(b[88:], crc32.Checksum(b[:88], castagnoli))
}

// decodeHeader parses and validates one header slot. It never panics.
func decodeHeader(b []byte) (header, error) {
	var h header
	if len(b) < headerUsed {
		return h, fmt.Errorf("header slot too short (%d bytes)", len(b))
	}
	if string(b[0:8]) != headerMagic {
		return h, fmt.Errorf("bad magic %q", b[0:8])
	}
	if got, want := binary.LittleEndian.Uint32(b[88:]), crc32.Checksum(b[:88], castagnoli); got != want {
		return h, fmt.Errorf("header checksum %#x, want %#x", got, want)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != formatVersion {
		return h, fmt.Errorf("unsupported format version %d", v)
	}
	if r := binary.LittleEndian.Uint32(b[12:]); r != 0 {
		return h, fmt.Errorf("reserved header field is %#x", r)
	}
	h.gen = binary.LittleEndian.Uint64(b[16:])
	capacity := binary.LittleEndian.Uint64(b[24:])
	h.anchorSeq = binary.LittleEndian.Uint64(b[32:])
	anchorOff := binary.LittleEndian.Uint64(b[40:])
	h.anchorLap = binary.LittleEndian.Uint32(b[48:])
	h.firstSeq = binary.LittleEndian.Uint64(b[56:])
	firstOff := binary.LittleEndian.Uint64(b[64:])
	h.syncedSeq = binary.LittleEndian.Uint64(b[72:])
	h.seqLimit = binary.LittleEndian.Uint64(b[80:])
	if capacity < MinCapacity || capacity > MaxCapacity {
		return h, fmt.Errorf("capacity %d out of range", capacity)
	}
	h.capacity = int64(capacity)
	end := dataEnd(h.capacity)
	if anchorOff < DataStart || anchorOff >= uint64(end) || anchorOff%recAlign != 0 {
		return h, fmt.Errorf("anchor offset %d outside the data area [%d, %d)", anchorOff, DataStart, end)
	}
	h.anchorOff = int64(anchorOff)
	if firstOff >= uint64(end) || firstOff%recAlign != 0 {
		return h, fmt.Errorf("first offset %d outside the data area", firstOff)
	}
	h.firstOff = int64(firstOff)
	if h.anchorLap == 0 {
		return h, fmt.Errorf("anchor lap is 0")
	}
	if h.seqLimit == 0 {
		return h, fmt.Errorf("sequence limit is 0")
	}
	return h, nil
}

// dataEnd is the end of the data area of a file of capacity bytes.
func dataEnd(capacity int64) int64 { return capacity &^ (recAlign - 1) }

// recordSize is the space a record with n payload bytes occupies.
func recordSize(n int) int64 {
	return (int64(RecordOverhead) + int64(n) + recAlign - 1) &^ (recAlign - 1)
}

// recHeader is the fixed header of a record or wrap marker.
type recHeader struct {
	length  uint32 // payload bytes (0 for a wrap marker)
	seq     uint64 // record: its sequence; wrap: the sequence of the record that follows at DataStart
	oldest  uint64 // oldest live sequence once this record was appended
	prevOff int64  // offset of the previous record (0: none)
	lap     uint32 // how many times the writer had wrapped, plus one
	kind    uint16
}

// encodeRecord writes h and payload into b (len(b) >= RecordOverhead+len(payload))
// and fills in the checksum. Padding beyond the payload is not written.
func encodeRecord(b []byte, h recHeader, payload []byte) {
	binary.LittleEndian.PutUint32(b[4:], h.length)
	binary.LittleEndian.PutUint64(b[8:], h.seq)
	binary.LittleEndian.PutUint64(b[16:], h.oldest)
	binary.LittleEndian.PutUint64(b[24:], uint64(h.prevOff))
	binary.LittleEndian.PutUint32(b[32:], h.lap)
	binary.LittleEndian.PutUint16(b[36:], h.kind)
	binary.LittleEndian.PutUint16(b[38:], 0)
	copy(b[RecordOverhead:], payload)
	crc := crc32.Checksum(b[4:RecordOverhead], castagnoli)
	crc = crc32.Update(crc, castagnoli, payload)
	binary.LittleEndian.PutUint32(b[0:], crc)
}

// decodeRecHeader parses the fixed header in b without checking the
// checksum (which covers the payload too); it validates the fields that
// can be validated alone. It never panics.
func decodeRecHeader(b []byte) (recHeader, error) {
	var h recHeader
	if len(b) < RecordOverhead {
		return h, fmt.Errorf("record header too short (%d bytes)", len(b))
	}
	h.length = binary.LittleEndian.Uint32(b[4:])
	h.seq = binary.LittleEndian.Uint64(b[8:])
	h.oldest = binary.LittleEndian.Uint64(b[16:])
	h.prevOff = int64(binary.LittleEndian.Uint64(b[24:]) & (1<<63 - 1))
	if binary.LittleEndian.Uint64(b[24:])>>63 != 0 {
		return h, fmt.Errorf("previous offset out of range")
	}
	h.lap = binary.LittleEndian.Uint32(b[32:])
	h.kind = binary.LittleEndian.Uint16(b[36:])
	if r := binary.LittleEndian.Uint16(b[38:]); r != 0 {
		return h, fmt.Errorf("reserved record field is %#x", r)
	}
	if h.seq == 0 {
		return h, fmt.Errorf("sequence 0")
	}
	if h.lap == 0 {
		return h, fmt.Errorf("lap 0")
	}
	switch h.kind {
	case kindRecord:
		if h.length == 0 || h.length > maxPayload {
			return h, fmt.Errorf("record length %d out of range", h.length)
		}
		if h.oldest == 0 || h.oldest > h.seq {
			return h, fmt.Errorf("oldest live sequence %d not in [1, %d]", h.oldest, h.seq)
		}
	case kindWrap:
		if h.length != 0 {
			return h, fmt.Errorf("wrap marker with length %d", h.length)
		}
	default:
		return h, fmt.Errorf("unknown record kind %d", h.kind)
	}
	return h, nil
}

// checkRecordCRC verifies the checksum of a record whose header and
// payload are b[:RecordOverhead+h.length].
func checkRecordCRC(b []byte, h recHeader) error {
	n := RecordOverhead + int(h.length)
	if len(b) < n {
		return fmt.Errorf("record truncated: %d of %d bytes", len(b), n)
	}
	want := binary.LittleEndian.Uint32(b[0:])
	got := crc32.Checksum(b[4:n], castagnoli)
	if got != want {
		return fmt.Errorf("record checksum %#x, want %#x", got, want)
	}
	return nil
}

// decodeRecord parses a whole record (or wrap marker) at the start of b,
// checksum included, and returns its header and payload (aliasing b).
func decodeRecord(b []byte) (recHeader, []byte, error) {
	h, err := decodeRecHeader(b)
	if err != nil {
		return h, nil, err
	}
	if err := checkRecordCRC(b, h); err != nil {
		return h, nil, err
	}
	return h, b[RecordOverhead : RecordOverhead+int(h.length)], nil
}
