package cli

var serveCommand = &command{
	name:    "serve",
	summary: "run a summary-cache node: a caching proxy sharing digests with its peers",
	usage:   usageText("serve"),
	run:     runServe,
}
