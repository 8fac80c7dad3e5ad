package build

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// spool writes the rendered report to SPOOL_DIR before the multipart upload:
// S3 needs the total size up front for the checksum manifest advertisers download.
func (b *Builder) spool(ctx context.Context, job Job, rows RowIter) (string, int64, error) {
	path := filepath.Join(b.cfg.SpoolDir, fmt.Sprintf("%d.csv", job.ID))
	f, err := os.Create(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var n, written int64
	last := time.Now()
	for rows.Next(ctx) {
		k, err := w.Write(b.render(job, rows.Row()))
		if err != nil {
			return "", 0, err
		}
		n++
		written += int64(k)
		if time.Since(last) > time.Minute {
			slog.InfoContext(ctx, "spooling", "job_id", job.ID, "advertiser", job.Advertiser, "rows", n, "spool_bytes", written)
			last = time.Now()
		}
	}
	if err := w.Flush(); err != nil {
		return "", 0, err
	}
	return path, written, rows.Err()
}
