package icp

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"
)

// Size returns the encoded length of m (RFC 2186 §1–2): the header, the
// requester address of a query, the URL and its NUL, and the object size
// and data of a HIT_OBJ reply.
func (m Message) Size() int {
	n := HeaderSize + len(m.URL) + 1
	if m.Opcode == OpQuery {
		n += 4
	}
	if m.Opcode == OpHitObj {
		n += 2 + len(m.Object)
	}
	return n
}

// AppendMessage appends the encoding of m to dst (RFC 2186 §1–2, all
// integers big-endian). It refuses an unknown opcode, a version other
// than 2 or 3, a URL containing NUL, addresses that are not IPv4, fields
// the opcode does not carry, and messages over MaxMessageSize.
func AppendMessage(dst []byte, m Message) ([]byte, error) {
	version := m.Version
	if version == 0 {
		version = Version2
	}
	if version != Version2 && version != Version3 {
		return dst, fmt.Errorf("%w: cannot write version %d (2 or 3)", ErrVersion, version)
	}
	if !m.Opcode.Valid() {
		return dst, fmt.Errorf("%w: cannot write %v", ErrOpcode, m.Opcode)
	}
	if strings.IndexByte(m.URL, 0) >= 0 {
		return dst, fmt.Errorf("%w: URL contains a NUL byte", ErrFormat)
	}
	if m.Opcode != OpQuery && m.Requester.IsValid() {
		return dst, fmt.Errorf("%w: only a query carries a requester address, not %v", ErrFormat, m.Opcode)
	}
	if m.Opcode != OpHitObj && m.Object != nil {
		return dst, fmt.Errorf("%w: only ICP_OP_HIT_OBJ carries object data, not %v", ErrFormat, m.Opcode)
	}
	size := m.Size()
	if size > MaxMessageSize {
		return dst, fmt.Errorf("%w: %d bytes, RFC 2186 allows %d", ErrTooBig, size, MaxMessageSize)
	}
	sender, err := ipv4Word(m.Sender, "sender")
	if err != nil {
		return dst, err
	}
	requester, err := ipv4Word(m.Requester, "requester")
	if err != nil {
		return dst, err
	}
	dst = append(dst, byte(m.Opcode), version)
	dst = binary.BigEndian.AppendUint16(dst, uint16(size))
	dst = binary.BigEndian.AppendUint32(dst, m.RequestNumber)
	dst = binary.BigEndian.AppendUint32(dst, m.Options)
	dst = binary.BigEndian.AppendUint32(dst, m.OptionData)
	dst = binary.BigEndian.AppendUint32(dst, sender)
	if m.Opcode == OpQuery {
		dst = binary.BigEndian.AppendUint32(dst, requester)
	}
	dst = append(dst, m.URL...)
	dst = append(dst, 0)
	if m.Opcode == OpHitObj {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(m.Object)))
		dst = append(dst, m.Object...)
	}
	return dst, nil
}

// Encode returns the encoding of m (see AppendMessage).
func Encode(m Message) ([]byte, error) {
	return AppendMessage(make([]byte, 0, m.Size()), m)
}

// AppendBinary implements encoding.BinaryAppender (see AppendMessage).
func (m Message) AppendBinary(b []byte) ([]byte, error) { return AppendMessage(b, m) }

// MarshalBinary implements encoding.BinaryMarshaler (see AppendMessage).
func (m Message) MarshalBinary() ([]byte, error) { return Encode(m) }

// UnmarshalBinary implements encoding.BinaryUnmarshaler: Decode with the
// default Limits.
func (m *Message) UnmarshalBinary(b []byte) error {
	d, err := Decode(b, Limits{})
	if err != nil {
		return err
	}
	*m = d
	return nil
}

// ipv4Word is an address as the 32-bit field of RFC 2186 §1; the zero
// Addr is 0.0.0.0.
func ipv4Word(a netip.Addr, field string) (uint32, error) {
	if !a.IsValid() {
		return 0, nil
	}
	a = a.Unmap()
	if !a.Is4() {
		return 0, fmt.Errorf("%w: %s address %v is not IPv4", ErrFormat, field, a)
	}
	return binary.BigEndian.Uint32(a.AsSlice()), nil
}

// wordIPv4 is the inverse of ipv4Word: 0.0.0.0 is the zero Addr.
func wordIPv4(b []byte) netip.Addr {
	if binary.BigEndian.Uint32(b) == 0 {
		return netip.Addr{}
	}
	return netip.AddrFrom4([4]byte(b[:4]))
}

// Decode decodes one datagram holding one ICP message (RFC 2186 §1–2).
// It checks, in order: the limit on the datagram, the header's presence,
// the version (2 or 3), the opcode (one RFC 2186 defines), that Message
// Length equals the datagram's length, then the payload of the opcode: a
// URL terminated by NUL within the limit, and nothing after it but a
// HIT_OBJ reply's object. It never panics and allocates only the URL
// and object, both bounded by the datagram.
func Decode(b []byte, lim Limits) (Message, error) {
	if len(b) > lim.maxMessage() {
		return Message{}, fmt.Errorf("%w: datagram of %d bytes (limit %d)", ErrTooBig, len(b), lim.maxMessage())
	}
	if len(b) < HeaderSize {
		return Message{}, fmt.Errorf("%w: datagram of %d bytes, the header alone is %d", ErrFormat, len(b), HeaderSize)
	}
	m := Message{
		Opcode:        Opcode(b[0]),
		Version:       b[1],
		RequestNumber: binary.BigEndian.Uint32(b[4:]),
		Options:       binary.BigEndian.Uint32(b[8:]),
		OptionData:    binary.BigEndian.Uint32(b[12:]),
		Sender:        wordIPv4(b[16:]),
	}
	if m.Version != Version2 && m.Version != Version3 {
		return Message{}, fmt.Errorf("%w: version %d (2 or 3)", ErrVersion, m.Version)
	}
	if !m.Opcode.Valid() {
		return Message{}, fmt.Errorf("%w: %v", ErrOpcode, m.Opcode)
	}
	if n := int(binary.BigEndian.Uint16(b[2:])); n != len(b) {
		return Message{}, fmt.Errorf("%w: message length %d in a datagram of %d bytes", ErrFormat, n, len(b))
	}
	p := b[HeaderSize:]
	if m.Opcode == OpQuery {
		if len(p) < 4 {
			return Message{}, fmt.Errorf("%w: query without a requester address", ErrFormat)
		}
		m.Requester = wordIPv4(p)
		p = p[4:]
	}
	end := bytes.IndexByte(p, 0)
	if end < 0 {
		return Message{}, fmt.Errorf("%w: %v URL is not NUL-terminated", ErrFormat, m.Opcode)
	}
	if end > lim.maxURL() {
		return Message{}, fmt.Errorf("%w: URL of %d bytes (limit %d)", ErrTooBig, end, lim.maxURL())
	}
	m.URL, p = string(p[:end]), p[end+1:]
	if m.Opcode == OpHitObj {
		// RFC 2186 §2: a 16-bit object size follows the NUL at once,
		// unaligned, then the object data.
		if len(p) < 2 {
			return Message{}, fmt.Errorf("%w: ICP_OP_HIT_OBJ without an object size", ErrFormat)
		}
		n := int(binary.BigEndian.Uint16(p))
		if p = p[2:]; n != len(p) {
			return Message{}, fmt.Errorf("%w: ICP_OP_HIT_OBJ object of %d bytes, %d present", ErrFormat, n, len(p))
		}
		m.Object = bytes.Clone(p) // p is a subslice, so never nil
		return m, nil
	}
	if len(p) != 0 {
		return Message{}, fmt.Errorf("%w: %d bytes after the URL's NUL", ErrFormat, len(p))
	}
	return m, nil
}
