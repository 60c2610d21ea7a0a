module github.com/bloomcast/bloomcast

go 1.24.9

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/klauspost/compress v1.18.0
	github.com/parquet-go/parquet-go v0.32.0
	github.com/prometheus/client_golang v1.23.2
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/sys v0.38.0
	golang.org/x/term v0.34.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/parquet-go/bitpack v1.0.0 // indirect
	github.com/prometheus/client_model v0.6.2 // indirect
	github.com/prometheus/common v0.66.1 // indirect
	github.com/prometheus/procfs v0.16.1 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	google.golang.org/protobuf v1.36.8 // indirect
)
