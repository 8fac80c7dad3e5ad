import logging

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

from .cohort import export_cohort
from .pdf import render_transcript_bytes
from .settings import settings

app = FastAPI(title="report-renderer")
log = logging.getLogger("renderer.api")


class TranscriptRequest(BaseModel):
    student: dict
    watermark: str | None = None


class CohortRequest(BaseModel):
    cohort_id: str
    students: list[dict]


@app.get("/healthz")
def healthz():
    return {"ok": True}


@app.post("/render/transcript")
def transcript(req: TranscriptRequest):
    pdf = render_transcript_bytes(req.student, watermark=req.watermark)
    log.info("rendered transcript student=%s bytes=%d", req.student.get("student_id"), len(pdf))
    return {"pdf_base64": pdf.hex()}


@app.post("/render/cohort-archive")
def cohort(req: CohortRequest):
    if not req.students:
        raise HTTPException(400, "empty cohort")
    return {"object": export_cohort(req.cohort_id, req.students, settings.gcs_bucket)}
