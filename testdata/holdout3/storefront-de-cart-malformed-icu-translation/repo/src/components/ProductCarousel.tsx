"use client";

import Image from "next/image";
import Link from "next/link";
import type { ProductCard } from "@/lib/catalog";

export function ProductCarousel({ title, products }: { title: string; products: ProductCard[] }) {
  if (products.length === 0) return null;
  return (
    <section className="my-10">
      <h2 className="mb-4 text-xl font-medium">{title}</h2>
      <ul className="flex snap-x gap-4 overflow-x-auto pb-2">
        {products.slice(0, 12).map((p, i) => (
          <li key={p.sku} className="w-56 shrink-0 snap-start">
            <Link href={p.href}>
              <Image src={p.image} alt={p.name} width={224} height={280} sizes="224px" priority={i < 2} className="rounded-md" />
              <p className="mt-2 text-sm">{p.name}</p>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
