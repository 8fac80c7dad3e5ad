use tonic::{Request, Response, Status};
use tracing::{info, instrument};

use crate::party::Party;
use crate::proto::matchmaker_server::Matchmaker;
use crate::proto::{EnqueueReply, EnqueueRequest, LeaveReply, LeaveRequest};
use crate::queue::QueueHandle;
use crate::rating::RatingClient;

pub struct MatchmakerService {
    pub queues: QueueHandle,
    pub ratings: RatingClient,
}

#[tonic::async_trait]
impl Matchmaker for MatchmakerService {
    #[instrument(skip_all, fields(party.id = %req.get_ref().party_id, playlist = %req.get_ref().playlist))]
    async fn enqueue_party(&self, req: Request<EnqueueRequest>) -> Result<Response<EnqueueReply>, Status> {
        let req = req.into_inner();
        let members = self
            .ratings
            .members_with_mmr(&req.player_ids, &req.playlist)
            .await
            .map_err(|e| Status::unavailable(format!("rating lookup: {e}")))?;
        let party = Party { id: req.party_id.parse().map_err(|_| Status::invalid_argument("party_id"))?, playlist: req.playlist, members };
        let bracket = self.queues.enqueue(party).await;
        info!(bracket, "party queued");
        Ok(Response::new(EnqueueReply { bracket: bracket as u32, estimated_wait_secs: self.queues.estimate(bracket).await }))
    }

    #[instrument(skip_all)]
    async fn leave_queue(&self, req: Request<LeaveRequest>) -> Result<Response<LeaveReply>, Status> {
        let id = req.into_inner().party_id.parse().map_err(|_| Status::invalid_argument("party_id"))?;
        Ok(Response::new(LeaveReply { removed: self.queues.leave(id).await }))
    }
}
