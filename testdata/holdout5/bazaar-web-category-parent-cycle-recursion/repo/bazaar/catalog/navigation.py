from .models import Category


def breadcrumbs(category: Category) -> list[Category]:
    """Root-first path to `category` for the page header."""
    if category.parent_id is None:
        return [category]
    return breadcrumbs(category.parent) + [category]


def menu_roots():
    return Category.objects.filter(parent__isnull=True, visible=True).order_by("position")
