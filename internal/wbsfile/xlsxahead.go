package wbsfile

// Rows are read from a sheet's XML by one goroutine and taken into the
// table by another, in batches, so that on two cores the table's work
// (the records, their checks, their links) runs beside the XML's.

// aheadBatchRows is the rows of a batch.
const aheadBatchRows = 512

// aheadRow is a row as readSheet gives it.
type aheadRow struct {
	row   int
	cols  []string
	ncols int
	read  int64
	bad   error
}

// rowBatch is rows read ahead. The cells' strings are readSheet's, which
// outlive the call that gives them; their list, which readSheet reuses,
// is copied into the batch's.
type rowBatch struct {
	rows  []aheadRow
	cells []string
}

// newRowBatch returns an empty batch, its arrays the size of a batch of
// wbsctl's four columns.
func newRowBatch() *rowBatch {
	return &rowBatch{rows: make([]aheadRow, 0, aheadBatchRows), cells: make([]string, 0, 4*aheadBatchRows)}
}

// reset empties b for the next rows.
func (b *rowBatch) reset() *rowBatch {
	clear(b.rows)
	clear(b.cells)
	b.rows, b.cells = b.rows[:0], b.cells[:0]
	return b
}

func (b *rowBatch) add(row int, cols []string, read int64, bad error) {
	b.cells = append(b.cells, cols...)
	// cols is set by seal, once cells holds the whole batch.
	b.rows = append(b.rows, aheadRow{row: row, ncols: len(cols), read: read, bad: bad})
}

// seal points the rows' cells into the batch's list.
func (b *rowBatch) seal() *rowBatch {
	k := 0
	for i := range b.rows {
		// A row's cells end at its own: a caller who appends to them
		// does not write over the next row's.
		n := b.rows[i].ncols
		b.rows[i].cols = b.cells[k : k+n : k+n]
		k += n
	}
	return b
}

// readRowsAhead runs read, which gives the rows of a sheet to the sheetRow
// it is given, in a goroutine of its own, and gives each row to emit in
// this one, in order, as readSheet would. It returns what read returns,
// once every row read has gone to emit.
func readRowsAhead(read func(sheetRow) (sheetFacts, error), emit sheetRow) (sheetFacts, error) {
	// Batches go to emit through full and come back through free: a few
	// are made, whatever the size of the sheet.
	const inFlight = 4
	full, free := make(chan *rowBatch, inFlight), make(chan *rowBatch, inFlight+1)
	var (
		facts sheetFacts
		err   error
	)
	go func() {
		defer close(full)
		next := func() *rowBatch {
			select {
			case b := <-free:
				return b.reset()
			default:
				return newRowBatch()
			}
		}
		b := next()
		facts, err = read(func(row int, cols []string, read int64, bad error) {
			b.add(row, cols, read, bad)
			if len(b.rows) == aheadBatchRows {
				full <- b.seal()
				b = next()
			}
		})
		if len(b.rows) > 0 {
			full <- b.seal()
		}
	}()
	for b := range full {
		for _, r := range b.rows {
			emit(r.row, r.cols, r.read, r.bad)
		}
		select {
		case free <- b:
		default:
		}
	}
	return facts, err
}
