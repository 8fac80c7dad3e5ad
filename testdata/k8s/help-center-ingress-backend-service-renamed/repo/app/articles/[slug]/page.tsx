import { notFound } from "next/navigation";
import { getArticle, getRelated } from "@/lib/contentful";
import { ArticleBody } from "@/components/ArticleBody";
import { RelatedArticles } from "@/components/RelatedArticles";

export const revalidate = 300;

export default async function ArticlePage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const article = await getArticle(slug);
  if (!article) notFound();
  const related = await getRelated(article.category, slug, 4);
  return (
    <main className="article">
      <h1>{article.title}</h1>
      <p className="updated">Updated {new Date(article.updatedAt).toLocaleDateString("en-GB")}</p>
      <ArticleBody doc={article.body} />
      <RelatedArticles items={related} />
    </main>
  );
}
