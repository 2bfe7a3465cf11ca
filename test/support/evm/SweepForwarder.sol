// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// The implementation behind every deposit forwarder (EIP-1167 clones delegate to it). It holds no state: the
/// factory is an immutable, so it lives in this contract's code and every clone sees the same one.
contract SweepForwarder {
    using SafeERC20 for IERC20;

    address public immutable factory;

    error NotFactory();

    constructor() {
        factory = msg.sender;
    }

    /// Sends this forwarder's whole balance of `token` to `to`; only the factory may ask.
    function flush(IERC20 token, address to) external returns (uint256 amount) {
        if (msg.sender != factory) revert NotFactory();
        amount = token.balanceOf(address(this));
        if (amount > 0) token.safeTransfer(to, amount);
    }
}
