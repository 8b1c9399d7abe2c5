import Foundation
import FuzzDriver

exit(Fuzz.run(fuzzJSONHelpers))
