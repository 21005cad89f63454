// Package capped is the ring extent file of a capped collection: a
// preallocated file of checksummed records that the writer fills in a
// circle, overwriting the oldest records first. It knows bytes, sequence
// numbers and positions, not documents; the engine keeps the indexes.
//
// # Format (version 1)
//
// The file is the collection's size, allocated at Create (fallocate, or
// zeros written) and fsynced with its directory. Bytes [0, 1024) hold two
// 512-byte header slots; a header write goes to the slot of the older
// generation, so a torn header write leaves the other slot intact, and
// Open uses the valid slot with the higher generation. A slot holds the
// format version, capacity, the oldest live sequence and its offset (as
// of that write), the anchor (below), the synced sequence and the
// sequence reservation, and a CRC32C.
//
// Records follow from DataStart, 8-byte aligned. Each has a 40-byte
// header: CRC32C (over the rest of the header and the payload), payload
// length, sequence number, the oldest live sequence once it was
// appended, the offset of the previous record, the lap counter (the
// number of times the writer had wrapped, plus one) and a kind. A record
// never spans the end of the file: when the next one does not fit, the
// writer leaves a wrap marker (a header of kind wrap) if there is room
// for one and starts again at DataStart on the next lap.
//
// # Size
//
// Physical space is Capacity()-DataStart, and each record costs
// RecordOverhead bytes plus padding to 8 bytes, so fewer records fit than
// size/average-document-size. MongoDB's size rule counts payload bytes
// (DataBytes); pass it as Limits.MaxDataBytes. Since payload bytes are
// always fewer than the physical bytes they occupy, in a file of the
// collection's size the physical rule binds first; both evict oldest
// first, and Limits.MaxRecords is applied after space (size wins over
// max). To hold a full `size` of payload the engine would have to create
// a larger file; it does not, following docs/capped.md §7.2 (the file is the size).
// Records named by Limits.Deleted (documents the engine deleted by
// rewriting their record in place) count toward neither limit but keep
// their physical space until evicted; Append hands the set each of them
// it evicts (DeletedSet.Evict), so the set never holds an evicted one.
// Records named by Limits.Grown count extra bytes toward MaxDataBytes
// (the engine's documents kept outside the ring, the record pointing at
// them): Append reads the payload of each such record it evicts to learn
// its extra (GrownSet.Extra) and hands the set the record as it leaves
// (GrownSet.Evict). Limits.AppendExtra counts extra bytes for the record
// being appended: one that is alone over MaxDataBytes evicts every older
// record and stays.
//
// # Eviction and the engine's index
//
// Append calls its evict callback with the records about to be
// overwritten or dropped, with their data, before any of their bytes
// change, so the engine can delete their index entries first. If the
// callback fails nothing happens. If Append then fails, or the process
// dies before the new record is on disk, recovery may bring the evicted
// records back (the insert that evicted them did not happen either): the
// ring is the truth, and the engine rebuilds or reconciles its indexes
// from it on open.
//
// # Sequence numbers
//
// Sequences start at 1, increase by one per append and never repeat
// across reopen, even after a crash that lost records the engine may
// already have indexed: the header reserves sequences 65536 at a time,
// and after a crash the next sequence is past the reservation, so the
// numbering may skip. After a clean Close it continues exactly.
//
// # Recovery
//
// Keeping the header's oldest position exact would cost a header write
// per eviction. Instead the header names an anchor record, and the writer
// rewrites the header (moving the anchor to the newest record) before it
// overwrites the anchor's bytes, about once per lap. The move is ordered
// by fsyncs so that a durable header always names a record on disk: the
// new anchor record is fsynced before the header names it (unless it is
// already durable), and the header is fsynced before any byte of the old
// anchor changes. Without the second, a power cut could keep the new
// bytes and lose the header, leaving the durable header pointing at a
// destroyed record. Open reads the
// anchor and walks forward, record by record, while each record is valid:
// in bounds, checksum correct, newer sequence, expected lap, linked to
// its predecessor. Stale records from an earlier lap fail the sequence
// and lap checks. The newest valid record says which sequence is the
// oldest live; Open walks back from the anchor through the previous-
// record links to it.
//
// Where the forward walk stops before the header's synced sequence, Open
// returns a *CorruptionError with the file and offset; a stop past it is
// a torn tail and is cut off (Recovery reports where and why). A record
// at the old end that fails on the way back is treated as one that an
// interrupted append had evicted and begun to overwrite: it and older
// ones are dropped (RecoveryInfo.DroppedOldest), not reported, because
// that damage cannot be told from a crash. Open fsyncs what it recovered
// and records it as synced.
//
// The synced sequence in the header advances on Sync, Close and anchor
// moves, not on each SyncEveryAppend fsync (that would double the
// writes). Damage to a record fsynced since is treated as a torn tail.
//
// # Durability and group commit
//
// Without SyncEveryAppend an appended record is in the OS page cache when
// Append returns: it survives a process crash, not power loss, until Sync
// or Close. Append then fsyncs only when it moves the anchor (two fsyncs,
// about once per lap), which also makes every record written before it
// durable. With it, Append returns after an fsync that covers the
// record. Concurrent appenders share fsyncs: each writes its record under
// the writer lock, releases it, then waits on the sync lock; whoever gets
// it fsyncs everything written so far, and the others find their record
// already covered and return without an fsync. So N concurrent appenders
// cost about one fsync per group rather than N, while a single appender
// pays one fsync per record (plus one more per lap for the header). A
// record becomes visible to readers (Read, Scan, Wait, LastSeq) only
// once committed, so with SyncEveryAppend a tailer never sees a record
// that could vanish on power loss. Evictions are decided on everything
// written, so with concurrent appenders evict may name a record whose
// Append has not returned yet; the engine must tolerate that (for
// example by checking FirstSeq after inserting the index entry).
//
// Sync costs two fsyncs (data, then the header that records the synced
// point) because one would let a header claim data that did not reach
// the disk.
//
// # Buffered appends and eviction without reads
//
// With Options.BufferAppends (and without SyncEveryAppend) Append leaves
// the encoded record in memory; Flush writes the buffered run with one
// pwrite (so do Sync, Close, Overwrite, Check, a wrap, any header write,
// and 256 KiB of buffered records) and only then makes the records
// visible to readers. Until written, a record survives no crash, and
// recovery ends at the last written one, exactly as if the later
// Appends had not happened; the writer's evictions still reach the file
// only after the records they overwrite were evicted. The engine
// flushes at the end of each insert chunk, before acknowledging it.
//
// AppendEvicting hands its evict callback the leaving records' sequence,
// offset and length without reading their data (Append reads each one);
// ReadRun reads runs of contiguous records with one pread each. Together
// they let the engine read an evicted record only when it needs its
// content, and then many at once.
//
// # Overwrite
//
// Overwrite rewrites a record of the same length in place, with a new
// checksum, under a lock that keeps readers out. It is not atomic under
// power loss: a torn overwrite leaves a record that fails its checksum,
// which recovery treats like any damage (corruption before the synced
// point). A process crash (kill -9) does not tear it; the write is one
// system call.
//
// # Concurrency and memory
//
// One writer at a time (an internal mutex); readers run concurrently and
// hold a read lock only while they copy one record. The ring keeps its
// live records in memory as blocks of up to 128 records that follow each
// other in the file (the first one's sequence, offset and lap, and the
// payload lengths: none when equal, a uvarint each when not), about a
// byte a record (MemBytes reports it).
//
// # Errors
//
// ErrTooLarge, ErrOverwritten and ErrSizeChanged wrap a *document.Error with
// codes 2 BadValue, 136 CappedPositionLost and 10003
// CannotGrowDocumentInCappedNamespace. After a write or fsync error the
// ring fails (ErrFailed) and refuses writes until reopened.
package capped
