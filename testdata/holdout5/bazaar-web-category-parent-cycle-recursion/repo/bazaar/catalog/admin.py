from django.contrib import admin

from .models import Category


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ("name", "parent", "position", "visible")
    list_filter = ("visible",)
    search_fields = ("name", "slug")
    autocomplete_fields = ("parent",)
