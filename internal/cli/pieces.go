package cli

import "github.com/bloomcast/bloomcast/anyfile"

// piecesReport is inspect's part for a digest coded in pieces.
type piecesReport = anyfile.PiecesReport

func inspectPieces(lf *loadedFilter) *piecesReport { return anyfile.NewPiecesReport(lf.View) }
