// Makes the checker for a property name: the ZooKeeper-level ones here, recipe-level ones from the
// recipe driver. Null when this run cannot judge it (the verdict is then "not-judged").
#pragma once

#include <memory>
#include <string_view>

#include "harness/recipe.h"
#include "properties/Property.h"

namespace harness {

class Cluster;

std::unique_ptr<properties::Property> makeProperty(std::string_view name, Cluster& cluster, RecipeDriver& driver);

}  // namespace harness
