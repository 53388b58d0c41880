// The per-thread state behind get_strategy() and get_replica_context():
// which strategy is in scope and which replica this thread is running.
#ifndef STRATA_CORE_STRATEGY_THREAD_CONTEXT_H_
#define STRATA_CORE_STRATEGY_THREAD_CONTEXT_H_

namespace strata {

class ReplicaContext;
class Strategy;

namespace detail {
Strategy*& current_strategy_slot();
ReplicaContext*& current_replica_slot();
}  // namespace detail

}  // namespace strata

#endif  // STRATA_CORE_STRATEGY_THREAD_CONTEXT_H_
