package cli

var serveCommand = &command{
	name:    "serve",
	summary: "run a summary-cache node: a caching proxy that shares digests",
	usage:   usageText("serve"),
	run:     runServe,
}
