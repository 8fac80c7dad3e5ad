from django.http import FileResponse
from rest_framework.decorators import api_view, permission_classes

from .permissions import OwnsAccount
from .pdf import render_statement_pdf
from .models import Statement

PAGE_LINES = 45


@api_view(["GET"])
@permission_classes([OwnsAccount])
def export_pdf(request, account_id, period):
    st = Statement.objects.for_period(account_id, period)
    lines = list(st.lines.order_by("booked_at", "id"))
    # one page per PAGE_LINES lines; carried-forward balance on every page header
    pages = [lines[i:i + PAGE_LINES] for i in range(0, len(lines), PAGE_LINES)] or [[]]
    pdf = render_statement_pdf(st, pages)
    return FileResponse(pdf, as_attachment=True, filename=f"statement-{period}.pdf", content_type="application/pdf")
