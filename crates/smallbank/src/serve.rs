//! [`serve`]: the runner's half of [`runner_protocol`](crate::runner_protocol): Transact's
//! executor over a Transact state, one block per `next` line read, one [`RunnerReply`] line
//! written per block. `transact-runner smallbank` calls it with a store it opened.

use std::io::{BufRead, Write};

use crate::blocks::Blocks;
use crate::error::SmallbankError;
use crate::family::Family;
use crate::runner_protocol::{RunnerReply, RunnerRequest, NEXT};
use crate::side::{FullState, RemovePruned, Side};

/// The Transact state a runner serves, opened.
pub struct Served {
    /// The state.
    pub state: Box<dyn FullState>,
    /// Run after each prune, when given (a SQL state's `remove_pruned_entries`).
    pub remove_pruned: Option<RemovePruned>,
    /// The empty trie's root.
    pub initial_root: String,
    /// Whether each commit reaches stable storage before it returns.
    pub fsyncs_per_commit: bool,
}

/// Runs `request`'s blocks on the `served` state as `input` asks for them, replying on
/// `output`; returns when the input ends or the blocks are done.
/// An error is also written to `output` as a `Failed` reply, so the parent can say it.
pub fn serve(
    served: Served,
    request: &RunnerRequest,
    input: impl BufRead,
    output: &mut impl Write,
) -> Result<(), SmallbankError> {
    let outcome = serve_blocks(served, request, input, output);
    if let Err(e) = &outcome {
        // The parent learns of the failure from this line or, failing that, from the pipe
        // closing: nothing more to do if it cannot be written.
        let _ = reply(
            output,
            &RunnerReply::Failed {
                message: e.to_string(),
            },
        );
    }
    outcome
}

fn serve_blocks(
    served: Served,
    request: &RunnerRequest,
    input: impl BufRead,
    output: &mut impl Write,
) -> Result<(), SmallbankError> {
    let Served {
        state,
        remove_pruned,
        initial_root,
        fsyncs_per_commit,
    } = served;
    let family: Family = request.family.parse()?;
    let mut side = Side::start("transact", state, family, None)?;
    if let Some(remove) = remove_pruned {
        side.after_prune(remove);
    }
    let mut blocks = Blocks::new(
        family,
        request.accounts,
        request.transactions,
        request.block_size,
        request.seed,
    );
    let mut root = initial_root.clone();
    let outcome = (|| {
        reply(
            output,
            &RunnerReply::Ready {
                initial_root,
                fsyncs_per_commit,
            },
        )?;
        for line in input.lines() {
            let line =
                line.map_err(|e| SmallbankError::Runner(format!("reading a request: {e}")))?;
            if line.trim() != NEXT {
                return Err(SmallbankError::Runner(format!(
                    "expected `{NEXT}`, read `{line}`"
                )));
            }
            let Some((block, batches)) = blocks.next_block()? else {
                return Err(SmallbankError::Runner(format!(
                    "asked for a block after the last ({})",
                    blocks.count
                )));
            };
            let done = side.block(block, &root, batches)?;
            root = done.outcome.root.clone();
            reply(output, &RunnerReply::Block(done.outcome))?;
        }
        Ok(())
    })();
    side.stop();
    outcome
}

fn reply(output: &mut impl Write, reply: &RunnerReply) -> Result<(), SmallbankError> {
    let line = serde_json::to_string(reply)
        .map_err(|e| SmallbankError::Runner(format!("encoding a reply: {e}")))?;
    writeln!(output, "{line}")
        .and_then(|()| output.flush())
        .map_err(|e| SmallbankError::Runner(format!("writing a reply: {e}")))
}
