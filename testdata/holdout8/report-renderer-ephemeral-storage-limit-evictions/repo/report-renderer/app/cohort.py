"""Cohort exports: every transcript of a graduating class in one ZIP.

The registrar runs this at the end of each term for the class that
graduates; the archive goes to the state reporting portal.
"""
import logging
import os
import tempfile
import zipfile

from google.cloud import storage

from .pdf import render_transcript

log = logging.getLogger("renderer.cohort")
_gcs = storage.Client()


def export_cohort(cohort_id: str, students: list[dict], bucket: str) -> str:
    workdir = tempfile.mkdtemp(prefix=f"cohort-{cohort_id}-", dir=os.environ.get("TMPDIR", "/tmp"))
    archive_path = os.path.join(workdir, f"{cohort_id}.zip")
    log.info("cohort export started: cohort=%s students=%d workdir=%s", cohort_id, len(students), workdir)

    with zipfile.ZipFile(archive_path, "w", compression=zipfile.ZIP_STORED) as zf:
        for i, student in enumerate(students, 1):
            pdf_path = os.path.join(workdir, f"{student['student_id']}.pdf")
            render_transcript(student, pdf_path)
            zf.write(pdf_path, arcname=os.path.basename(pdf_path))
            if i % 200 == 0:
                log.info("cohort export progress: cohort=%s rendered=%d/%d", cohort_id, i, len(students))

    blob = _gcs.bucket(bucket).blob(f"cohorts/{cohort_id}.zip")
    blob.upload_from_filename(archive_path, content_type="application/zip")
    log.info("cohort export uploaded: gs://%s/%s", bucket, blob.name)
    return blob.name
