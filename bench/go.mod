module github.com/bloomcast/bloomcast/bench

go 1.25

replace github.com/bloomcast/bloomcast => ../

require (
	github.com/FastFilter/xorfilter v0.4.2-0.20260120015552-4e5a4d9df65a
	github.com/bits-and-blooms/bloom/v3 v3.7.1
	github.com/bloomcast/bloomcast v0.0.0-00010101000000-000000000000
	github.com/greatroar/blobloom v0.0.0-00010101000000-000000000000
	github.com/holiman/bloomfilter/v2 v2.0.3
	github.com/klauspost/compress v1.20.3
	github.com/seiflotfy/cuckoofilter v0.0.0-20240715131351-a2f2c23f1771
	github.com/tylertreat/BoomFilters v0.0.0-20251001182300-5b3723cc64ae
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/sys v0.38.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/d4l3k/messagediff v1.2.1 // indirect
	github.com/dgryski/go-metro v0.0.0-20200812162917-85c65e2d0165 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_golang v1.23.2 // indirect
	github.com/prometheus/client_model v0.6.2 // indirect
	github.com/prometheus/common v0.66.1 // indirect
	github.com/prometheus/procfs v0.16.1 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	google.golang.org/protobuf v1.36.8 // indirect
)

// blobloom is not served by the module proxy: Debian's
// golang-github-greatroar-blobloom-dev installs its source here (.ci/run
// installs the package).
replace github.com/greatroar/blobloom => /usr/share/gocode/src/github.com/greatroar/blobloom
