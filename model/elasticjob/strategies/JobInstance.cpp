#include "model/elasticjob/strategies/JobInstance.h"

#include <algorithm>
#include <functional>

namespace elasticjob {

std::string_view JobInstance::getServerIp() const {
  std::string_view id = jobInstanceId;
  return id.substr(0, id.find(DELIMITER));  // npos: the whole id
}

bool isWellFormedJobInstanceId(std::string_view id) {
  const std::size_t delimiter = id.find(JobInstance::DELIMITER);
  if (delimiter == std::string_view::npos) return false;
  if (delimiter == 0) return false;                                          // no ip
  return delimiter + JobInstance::DELIMITER.size() < id.size();              // a pid after it
}

void sortLikeGetChildrenKeys(std::vector<JobInstance>& jobInstances) {
  std::sort(jobInstances.begin(), jobInstances.end(), std::greater<>());
}

}  // namespace elasticjob
