package main

// piecesReport is inspect's part for a digest coded in pieces.
type piecesReport struct {
	Count      int    `json:"count"`
	PieceBytes int    `json:"piece_bytes"`
	Codec      string `json:"codec"`       // of the pieces' streams: arith or fast
	IndexBytes int    `json:"index_bytes"` // the pieces header and index
}

func inspectPieces(lf *loadedFilter) *piecesReport {
	v := lf.View
	if v == nil {
		return nil
	}
	return &piecesReport{Count: v.Pieces(), PieceBytes: v.PieceBytes(), Codec: v.Codec().String(), IndexBytes: 8 + 4*v.Pieces()}
}
