from rest_framework import serializers

from menu.models import Dish


class DishSerializer(serializers.ModelSerializer):
    class Meta:
        model = Dish
        fields = ["id", "name", "price", "allergens", "available"]
