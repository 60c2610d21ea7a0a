module github.com/bloomcast/bloomcast/formats/bitsandblooms/crosscheck

go 1.24.9

replace github.com/bloomcast/bloomcast => ../../../

require (
	github.com/bits-and-blooms/bloom/v3 v3.7.1
	github.com/bloomcast/bloomcast v0.0.0-00010101000000-000000000000
)

require github.com/bits-and-blooms/bitset v1.24.2 // indirect
