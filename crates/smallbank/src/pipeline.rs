//! Transact's execution platform around one state: a context manager reading the state, a
//! static execution adapter running the family's handler, the executor, and a serial
//! scheduler per block. A block's batches go in; each valid transaction's state changes come
//! out, in order.

use std::sync::mpsc;

use transact::context::manager::sync::ContextManager;
use transact::execution::adapter::static_adapter::StaticExecutionAdapter;
use transact::execution::executor::Executor;
use transact::protocol::batch::BatchPair;
use transact::protocol::receipt::TransactionResult;
use transact::scheduler::serial::SerialScheduler;
use transact::scheduler::Scheduler;
use transact::state::{Read, StateChange};

use crate::family::Family;

/// One block's execution: the valid transactions' changes in order, and the counts.
#[derive(Debug, Default)]
pub struct Executed {
    /// Every valid transaction's state changes, in execution order.
    pub changes: Vec<StateChange>,
    /// Transactions the handler accepted.
    pub valid: u64,
    /// Transactions the handler rejected (they change nothing).
    pub invalid: u64,
}

/// Transact's executor with a family's handler over one state.
pub struct Pipeline {
    executor: Executor,
    context_manager: ContextManager,
}

impl Pipeline {
    /// Starts an executor whose `family` transactions read `state`.
    pub fn start(
        state: Box<dyn Read<StateId = String, Key = String, Value = Vec<u8>>>,
        family: Family,
    ) -> Result<Self, String> {
        let context_manager = ContextManager::new(state);
        let adapter =
            StaticExecutionAdapter::new_adapter(vec![family.handler()], context_manager.clone())
                .map_err(|e| e.to_string())?;
        let mut executor = Executor::new(vec![Box::new(adapter)]);
        executor.start().map_err(|e| e.to_string())?;
        Ok(Pipeline {
            executor,
            context_manager,
        })
    }

    /// Executes `batches` in order against the state at `state_id` (each transaction sees the
    /// earlier ones' changes) and returns what the valid ones changed.
    pub fn execute(&self, state_id: &str, batches: Vec<BatchPair>) -> Result<Executed, String> {
        let mut scheduler =
            SerialScheduler::new(Box::new(self.context_manager.clone()), state_id.to_string())
                .map_err(|e| e.to_string())?;
        let (tx, rx) = mpsc::channel();
        scheduler
            .set_result_callback(Box::new(move |result| {
                // The receiver outlives every result but the last `None`, which may find it
                // gone: nothing to do then.
                let _ = tx.send(result);
            }))
            .map_err(|e| e.to_string())?;
        let expected = batches.len();
        for batch in batches {
            scheduler.add_batch(batch).map_err(|e| e.to_string())?;
        }
        scheduler.finalize().map_err(|e| e.to_string())?;
        let tasks = scheduler.take_task_iterator().map_err(|e| e.to_string())?;
        let notifier = scheduler.new_notifier().map_err(|e| e.to_string())?;
        self.executor
            .execute(tasks, notifier)
            .map_err(|e| e.to_string())?;

        let mut out = Executed::default();
        let mut seen = 0;
        while seen < expected {
            let result = rx
                .recv()
                .map_err(|_| "the scheduler stopped before every batch had a result".to_string())?;
            let Some(result) = result else {
                return Err(format!(
                    "the scheduler ended after {seen} of {expected} batches"
                ));
            };
            seen += 1;
            for receipt in result.receipts {
                match receipt.transaction_result {
                    TransactionResult::Valid { state_changes, .. } => {
                        out.valid += 1;
                        out.changes
                            .extend(state_changes.into_iter().map(StateChange::from));
                    }
                    TransactionResult::Invalid { .. } => out.invalid += 1,
                }
            }
        }
        Ok(out)
    }

    /// Stops the executor's threads.
    pub fn stop(self) {
        self.executor.stop();
    }
}
