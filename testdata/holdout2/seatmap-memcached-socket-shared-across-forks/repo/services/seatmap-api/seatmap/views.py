from django.http import JsonResponse
from django.views.decorators.http import require_GET

from seatmap import cache
from seatmap.render import render_section


@require_GET
def section_map(request, event_id: str, section: str):
    doc = cache.get_section(event_id, section)
    if doc is None:
        doc = render_section(event_id, section)
        cache.put_section(event_id, section, doc)
    return JsonResponse({"event": event_id, "section": section, "rows": doc["rows"], "version": doc["version"]})
