<?php

namespace App\Controller;

use App\Repository\ProductRepository;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\Routing\Attribute\Route;

final class ProductController
{
    public function __construct(private ProductRepository $products)
    {
    }

    #[Route('/v1/products/{id}', methods: ['GET'])]
    public function show(int $id): JsonResponse
    {
        return new JsonResponse($this->products->detail($id));
    }
}
