import { Card } from './Card';

export function FeedCard({ item }: { item: FeedItem }) {
  return (
    <Card href={item.url} title={item.title} kicker={item.topicLabel} image={item.imageUrl} aspect="16:9" />
  );
}
