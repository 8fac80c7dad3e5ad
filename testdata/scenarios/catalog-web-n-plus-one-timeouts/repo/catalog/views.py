from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404
from django.views.generic import ListView

from catalog.models import Category, Product

PAGE_SIZE = 48


class CategoryListView(ListView):
    template_name = "catalog/category.html"
    paginate_by = PAGE_SIZE
    context_object_name = "products"

    def get_queryset(self):
        self.category = get_object_or_404(Category, slug=self.kwargs["slug"])
        qs = Product.objects.filter(category__in=self.category.get_descendants(include_self=True), is_active=True)
        return qs.order_by(self.request.GET.get("sort", "-published_at"))

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["category"] = self.category
        return ctx
