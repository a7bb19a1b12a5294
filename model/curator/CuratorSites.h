// The named sites of the Curator model (sim/site.h; `electsim sites` lists them), each next to the
// Curator 5.x step it mirrors (curator-recipes/src/main/java/org/apache/curator/framework/recipes/).
#pragma once

#include <array>

#include "sim/site.h"

namespace curator::sites {

using sim::Site;
using sim::SiteRole;

inline constexpr Site latch_node_created{
    "latch.node_created", SiteRole::instance, true,
    "LeaderLatch.reset: the create callback's setNode(event.getName()) (leader/LeaderLatch.java, BackgroundCallback in reset)",
    "a LeaderLatch's ephemeral-sequential node exists and the latch knows its name; it has not listed the children nor set its watch",
    "path"};
inline constexpr Site cache_rebuilt{
    "curator.cache_rebuilt", SiteRole::instance, false,
    "CuratorCacheImpl.rebuild, on CONNECTED and RECONNECTED (cache/CuratorCacheImpl.java)",
    "a CuratorCache asked for its root and every stored node again; the answers, and the events for what changed while it was "
    "away, have not arrived",
    "path"};

inline constexpr std::array<const Site*, 2> all{&latch_node_created, &cache_rebuilt};

}  // namespace curator::sites
