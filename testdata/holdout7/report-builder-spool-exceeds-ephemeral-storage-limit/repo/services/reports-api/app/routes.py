from fastapi import APIRouter, Depends, Query

from .db import Session, get_session
from .models import ReportJob

router = APIRouter()


@router.get("/v1/advertisers/{advertiser_id}/reports")
def list_reports(advertiser_id: int, limit: int = Query(50, le=200), before: int | None = None,
                 session: Session = Depends(get_session)):
    q = session.query(ReportJob).filter_by(advertiser_id=advertiser_id)
    if before is not None:
        q = q.filter(ReportJob.id < before)
    return q.order_by(ReportJob.id.desc()).limit(limit).all()
