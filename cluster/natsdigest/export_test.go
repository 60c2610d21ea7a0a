package natsdigest

// HeaderSize is headerSize, for the tests that check every message the
// server holds against its max_payload.
var HeaderSize = headerSize
