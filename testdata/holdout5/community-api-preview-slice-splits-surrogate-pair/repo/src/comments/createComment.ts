import type { Pool } from 'pg';
import { preview } from '../activity/preview';
import type { Comment, NewComment } from './types';

export async function createComment(db: Pool, input: NewComment): Promise<Comment> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<Comment>(
      'INSERT INTO comments (thread_id, author_id, body) VALUES ($1, $2, $3) RETURNING *',
      [input.threadId, input.authorId, input.body],
    );
    await client.query(
      'INSERT INTO activity (actor_id, kind, payload) VALUES ($1, $2, $3)',
      [input.authorId, 'comment.created', { threadId: input.threadId, commentId: rows[0].id, preview: preview(input.body) }],
    );
    await client.query('COMMIT');
    return rows[0];
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}
