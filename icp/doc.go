// Package icp speaks the Internet Cache Protocol, version 2 (RFC 2186,
// the messages; RFC 2187, their use between Web caches): the per-URL
// query that caches such as Squid send their siblings before a miss, and
// the baseline a summary cache is measured against (Fan, Cao, Almeida
// and Broder, "Summary cache", 2000: ICP costs a query to every peer on
// every miss; a digest costs a lookup).
//
// A message is one UDP datagram: a 20-byte header, all integers
// big-endian (RFC 2186 §1),
//
//	uint8  opcode            uint8  version (2)      uint16 message length
//	uint32 request number
//	uint32 options           (flags, RFC 2186 §3)
//	uint32 option data
//	uint32 sender host address (IPv4; 0 in practice)
//
// then the payload (RFC 2186 §2): a query has a uint32 requester host
// address and a NUL-terminated URL; the replies HIT, MISS, ERR,
// MISS_NOFETCH and DENIED, and the echoes SECHO and DECHO, have just the
// URL; HIT_OBJ has the URL, a uint16 object size right after its NUL,
// and the object. Message length equals the datagram's length.
//
// AppendMessage and Encode write messages, refusing anything RFC 2186
// forbids (over 16,384 bytes, ICP_OP_INVALID). Decode reads one datagram
// as hostile input: it checks the size against Limits first, then the
// version, the opcode, the length field and the payload, names the
// problem in a wrapped error (ErrFormat, ErrVersion, ErrOpcode,
// ErrTooBig), allocates only the URL (and a HIT_OBJ's object), and never
// panics. It accepts version 3 as well, which Squid also answers (its
// icp_v3.cc, for Harvest cached-2.x); replies are always version 2.
//
// A Server answers queries on a UDP socket from a Lookup function; a
// Client sends queries from a socket it owns, any number concurrently,
// and returns at the first hit, when every peer has answered, or at the
// timeout. Both count the messages and bytes they send and receive
// (Traffic), the numbers an evaluation of inter-node traffic needs.
package icp
