package cli

func inspectDelta(e *env, path string, lf *loadedFilter, asJSON bool) error {
	r, err := lf.DeltaReport(path)
	if err != nil {
		return fileErr(path, err)
	}
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	return r.WriteText(e.stdout)
}
