from django.shortcuts import get_object_or_404, render

from .models import Category, Product
from .navigation import breadcrumbs


def category_detail(request, slug):
    category = get_object_or_404(Category, slug=slug, visible=True)
    products = Product.objects.in_category_tree(category).published()[:48]
    return render(request, "catalog/category.html", {
        "category": category,
        "breadcrumbs": breadcrumbs(category),
        "products": products,
    })


def product_detail(request, slug):
    product = get_object_or_404(Product.objects.select_related("category"), slug=slug)
    return render(request, "catalog/product.html", {
        "product": product,
        "breadcrumbs": breadcrumbs(product.category),
    })
