package icp

import (
	"errors"
	"fmt"
	"net/netip"
)

// Format constants (RFC 2186 §1).
const (
	// HeaderSize is the fixed header every message starts with.
	HeaderSize = 20
	// Version2 is the version of RFC 2186, the one this package sends.
	Version2 = 2
	// Version3 is the undocumented version Harvest cached-2.x sent. Squid
	// answers its queries as it does version 2 ones (icp_v3.cc) and so does
	// this package; its Options and Option Data fields are carried
	// uninterpreted.
	Version3 = 3
	// MaxMessageSize is the largest message RFC 2186 §1 allows ("ICP
	// messages MUST not exceed 16,384 octets"). The encoder refuses to
	// exceed it.
	MaxMessageSize = 16384
	// MaxDatagram is the largest message the 16-bit Message Length field
	// can describe; the decoder's default limit.
	MaxDatagram = 65535
	// DefaultMaxURL bounds a decoded URL (without its NUL) unless Limits
	// say otherwise: 16 KiB.
	DefaultMaxURL = 16 << 10
	// Port is the port IANA registered for ICP (and Squid's icp_port).
	Port = 3130
)

// Option flags (RFC 2186 §3). This package never sets them; it carries
// what it receives in Message.Options.
const (
	FlagHitObj = 0x80000000 // ICP_FLAG_HIT_OBJ: a HIT_OBJ reply is welcome
	FlagSrcRTT = 0x40000000 // ICP_FLAG_SRC_RTT: low 16 bits of Option Data hold an RTT in ms
)

// Opcode is an ICP message type (RFC 2186 §2).
// The zero value is OpInvalid, ICP_OP_INVALID, which is not Valid.
type Opcode uint8

// The opcodes of RFC 2186 §2. Experimental opcodes 12–20 of the ICP
// drafts are not part of the RFC and are rejected as unknown.
const (
	OpInvalid     Opcode = 0  // ICP_OP_INVALID: never sent; a zero-filled message
	OpQuery       Opcode = 1  // ICP_OP_QUERY: requester address, then URL
	OpHit         Opcode = 2  // ICP_OP_HIT: the URL is cached here and may be fetched
	OpMiss        Opcode = 3  // ICP_OP_MISS: not cached here
	OpErr         Opcode = 4  // ICP_OP_ERR: the query could not be parsed or handled
	OpSecho       Opcode = 10 // ICP_OP_SECHO: a query bounced off an origin's echo port
	OpDecho       Opcode = 11 // ICP_OP_DECHO: a query bounced off a non-ICP cache's echo port
	OpMissNoFetch Opcode = 21 // ICP_OP_MISS_NOFETCH: a miss, and do not fetch it from here now
	OpDenied      Opcode = 22 // ICP_OP_DENIED: the querier may not fetch this URL from here
	OpHitObj      Opcode = 23 // ICP_OP_HIT_OBJ: a hit with the object in the reply
)

var opNames = [...]string{
	OpInvalid: "ICP_OP_INVALID", OpQuery: "ICP_OP_QUERY", OpHit: "ICP_OP_HIT",
	OpMiss: "ICP_OP_MISS", OpErr: "ICP_OP_ERR", OpSecho: "ICP_OP_SECHO",
	OpDecho: "ICP_OP_DECHO", OpMissNoFetch: "ICP_OP_MISS_NOFETCH",
	OpDenied: "ICP_OP_DENIED", OpHitObj: "ICP_OP_HIT_OBJ",
}

// String returns the RFC's name of the opcode, or "ICP_OP(n)".
func (o Opcode) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return fmt.Sprintf("ICP_OP(%d)", uint8(o))
}

// Valid reports whether o is one of the opcodes RFC 2186 §2 defines
// (ICP_OP_INVALID excluded).
func (o Opcode) Valid() bool {
	return o != OpInvalid && int(o) < len(opNames) && opNames[o] != ""
}

// IsReply reports whether o answers a query (RFC 2186 §2: HIT, MISS,
// ERR, MISS_NOFETCH, DENIED or HIT_OBJ).
func (o Opcode) IsReply() bool {
	switch o {
	case OpHit, OpMiss, OpErr, OpMissNoFetch, OpDenied, OpHitObj:
		return true
	}
	return false
}

// IsHit reports whether o says the replying cache holds the URL.
func (o Opcode) IsHit() bool { return o == OpHit || o == OpHitObj }

// Message is one ICP message (RFC 2186 §1): the header fields, then the
// payload of its opcode.
//
// The zero Message has opcode ICP_OP_INVALID, which the encoders refuse with
// ErrOpcode.
type Message struct {
	Opcode Opcode
	// Version is 2 or 3; the encoder writes 2 when it is zero.
	Version uint8
	// RequestNumber is opaque; a reply copies the query's.
	RequestNumber uint32
	Options       uint32 // flags (FlagHitObj, FlagSrcRTT)
	OptionData    uint32 // low 16 bits: RTT in ms under FlagSrcRTT
	// Sender is the Sender Host Address, an IPv4 address that RFC 2186
	// §1 says is not used in practice. The zero Addr stands for 0.0.0.0.
	Sender netip.Addr
	// Requester is the Requester Host Address of a query: the address of
	// the client behind the querying cache, the zero Addr (0.0.0.0) for
	// "not specified" (RFC 2186 §2). Only queries carry it.
	Requester netip.Addr
	// URL is the payload's URL, without its terminating NUL.
	URL string
	// Object is the object data of an ICP_OP_HIT_OBJ reply; only that
	// opcode carries it.
	Object []byte
}

// Errors, wrapped with details.
var (
	ErrFormat  = errors.New("icp: malformed message")
	ErrVersion = errors.New("icp: unsupported version")
	ErrOpcode  = errors.New("icp: unknown opcode")
	ErrTooBig  = errors.New("icp: message exceeds limit")
	ErrConfig  = errors.New("icp: invalid configuration")
	ErrClosed  = errors.New("icp: client closed")
)

// Limits bounds what a decoder accepts. The zero value applies the
// defaults.
type Limits struct {
	// MaxMessage is the largest datagram accepted, in bytes; 0 (or more
	// than MaxDatagram) means MaxDatagram. MaxMessageSize enforces RFC
	// 2186's 16 KiB.
	MaxMessage int
	// MaxURL is the longest URL accepted (without its NUL); 0 means
	// DefaultMaxURL.
	MaxURL int
	// Replies is the most replies a Server sends a second, in bursts of
	// up to as many; 0 means DefaultReplies. Queries beyond it are left
	// unanswered (ServerStats.Unanswered). Raise it for peers that
	// query faster; it bounds what a forged source address can have
	// the server reflect. Clients ignore it.
	Replies int
}

// DefaultReplies is the Server's reply budget a second when
// Limits.Replies is 0.
const DefaultReplies = 10000

func (l Limits) replies() int {
	if l.Replies <= 0 {
		return DefaultReplies
	}
	return l.Replies
}

func (l Limits) maxMessage() int {
	if l.MaxMessage <= 0 || l.MaxMessage > MaxDatagram {
		return MaxDatagram
	}
	return l.MaxMessage
}

func (l Limits) maxURL() int {
	if l.MaxURL <= 0 {
		return DefaultMaxURL
	}
	return l.MaxURL
}
