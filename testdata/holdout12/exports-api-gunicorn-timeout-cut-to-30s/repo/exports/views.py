from django.http import StreamingHttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from .builders import build_ledger_csv, build_vat_xlsx
from .auth import tenant_from_request


@require_GET
def ledger_csv(request):
    tenant = tenant_from_request(request)
    period = request.GET["period"]
    data = build_ledger_csv(tenant, period)  # large tenants: 30-90 s, see exports/README.md
    resp = StreamingHttpResponse(iter([data]), content_type="text/csv")
    resp["Content-Disposition"] = f'attachment; filename="ledger-{period}.csv"'
    return resp


@require_GET
def vat_xlsx(request):
    tenant = tenant_from_request(request)
    return build_vat_xlsx(tenant, request.GET["quarter"])


@require_GET
def health(request):
    return JsonResponse({"ok": True})
