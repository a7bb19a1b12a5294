// The recipe drivers, one file each under harness/recipes/.
#pragma once

#include <memory>

#include "harness/recipe.h"

namespace harness {

std::unique_ptr<RecipeDriver> makeZooKeeperRecipe();
std::unique_ptr<RecipeDriver> makeEsRecipe();
std::unique_ptr<RecipeDriver> makeNaiveRecipe();
std::unique_ptr<RecipeDriver> makeLeaderLatchRecipe();
std::unique_ptr<RecipeDriver> makeLeaderSelectorRecipe();
std::unique_ptr<RecipeDriver> makeElasticJobRecipe();

}  // namespace harness
