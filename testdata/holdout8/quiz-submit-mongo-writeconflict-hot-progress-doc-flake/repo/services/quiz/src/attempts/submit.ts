import { ClientSession, MongoClient, ObjectId } from 'mongodb';
import { FastifyBaseLogger } from 'fastify';
import { gradeAttempt } from './grading';
import { Attempt, ClassProgress, GradebookEntry } from './types';

/**
 * Finalises an attempt: grades it, writes the gradebook entry and bumps the
 * section's progress counters (the teacher dashboard shows "23/28 submitted"
 * live). All three writes are one transaction so the dashboard never counts
 * an attempt that has no grade.
 */
export async function submitAttempt(client: MongoClient, log: FastifyBaseLogger, attemptId: string, studentId: string) {
  const db = client.db('assessments');
  const session: ClientSession = client.startSession();
  try {
    session.startTransaction({ readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } });

    const attempts = db.collection<Attempt>('attempts');
    const attempt = await attempts.findOne({ _id: new ObjectId(attemptId), studentId }, { session });
    if (!attempt) throw new Error('attempt not found');
    if (attempt.status === 'submitted') {
      await session.abortTransaction();
      return attempt;
    }

    const result = gradeAttempt(attempt);
    await attempts.updateOne(
      { _id: attempt._id },
      { $set: { status: 'submitted', submittedAt: new Date(), score: result.score, maxScore: result.maxScore } },
      { session },
    );
    await db.collection<GradebookEntry>('gradebook_entries').insertOne(
      { sectionId: attempt.sectionId, assessmentId: attempt.assessmentId, studentId, score: result.score, maxScore: result.maxScore, createdAt: new Date() },
      { session },
    );
    await db.collection<ClassProgress>('class_progress').updateOne(
      { sectionId: attempt.sectionId, assessmentId: attempt.assessmentId },
      { $inc: { submitted: 1, scoreSum: result.score }, $set: { updatedAt: new Date() } },
      { session, upsert: true },
    );

    await session.commitTransaction();
    log.info({ attemptId, sectionId: attempt.sectionId, score: result.score }, 'attempt submitted');
    return { ...attempt, status: 'submitted', score: result.score };
  } catch (err) {
    if (session.inTransaction()) await session.abortTransaction();
    throw err;
  } finally {
    await session.endSession();
  }
}
